import { expansionFailureOf } from '../../../machines/index.js';
import type { BatchJobLists } from '../contracts.js';
import type { BatchRecord } from '../../queue/batches/load.js';
import type { Profile } from '../ingest-contracts.js';
import { aggregatePrefix, isVerbose, javaDateString, merrittIsoDate, merrittSubject } from './mail.js';
import type { MailSettings } from '../../config/ingest-settings.js';

/** What a report says about one job, when it is cheap to find out. */
export interface JobSummary {
  ark?: string;
  localIds?: string[];
  /** The failure message of a failed job. */
  message?: string;
  /** `/jobs/JID/configuration` as stored: the job objects of `completed.json` / `failed.json`. */
  configuration?: Record<string, unknown>;
  /** The status as stored (`Failed`): `failed.json`'s `status`. */
  status?: string;
  /** The object's title (ERC what): the verbose mail's dataset. */
  title?: string;
}

/** What Merritt's batch report (`ingest:IS/handlers/batchReport/HandlerNotification.java`) is made of. */
export interface MerrittReportInput {
  batch: BatchRecord;
  jobs: BatchJobLists;
  summaries: ReadonlyMap<string, JobSummary>;
  profile: Profile | undefined;
  mail: MailSettings;
  now: Date;
}

/** A mail attachment: file name, content type, description, content. */
export interface ReportAttachment {
  filename: string;
  contentType: string;
  description: string;
  content: string;
}

/** The MIME type Merritt gives `completed.json` and `failed.json`. */
export const REPORT_ATTACHMENT_TYPE = 'application/json; header=present';

/** The batch's uuid (`bid-…`, what Merritt calls the batch id), else this engine's id. */
export function batchUuidOf(batch: BatchRecord): string {
  const uuid = batch.submission.batchID;
  return typeof uuid === 'string' && uuid !== '' ? uuid : batch.batchId;
}

/** FAIL when a job failed or the batch could not be expanded. */
export function reportStatus(batch: BatchRecord, jobs: BatchJobLists): 'OK' | 'FAIL' {
  return jobs.failed.length > 0 || batch.expansionFailed ? 'FAIL' : 'OK';
}

/** The job the verbose mail is about: the first completed, else the first failed one. */
function verboseJob(input: MerrittReportInput): JobSummary | undefined {
  const jid = input.jobs.completed[0] ?? input.jobs.failed[0];
  return jid === undefined ? undefined : input.summaries.get(jid);
}

/** The local id (ids joined by `;`), else the ark, else the batch uuid: what the verbose mail names. */
function verboseId(input: MerrittReportInput): string {
  const job = verboseJob(input);
  if (job?.localIds?.length) return job.localIds.join(';');
  return job?.ark ?? batchUuidOf(input.batch);
}

/**
 * The subject: `Ingest: OK -- Submission Processed: [Aggregate] bid-…;` (FAIL when a job failed),
 * or with `NotificationType: verbose` `Submission Processed [Merritt stg]: {local id or ark}`
 * (`Submission Failed…` when a job failed).
 */
export function merrittReportSubject(input: MerrittReportInput): string {
  const status = reportStatus(input.batch, input.jobs);
  if (!isVerbose(input.profile)) {
    const extra = `${aggregatePrefix(input.profile)}${batchUuidOf(input.batch)}`;
    return merrittSubject(input.mail.env, status, 'Submission Processed', [extra]);
  }
  const instance = input.mail.env ? ` [Merritt ${input.mail.env}]` : '';
  const what = status === 'OK' ? 'Submission Processed' : 'Submission Failed';
  return `${what}${instance}: ${verboseId(input)}`;
}

/** `Status` and `Status Message`: the first failed job's, the expansion failure, or `COMPLETED` / `Success`. */
function statusLines(input: MerrittReportInput): [string, string] {
  const first = input.jobs.failed[0];
  if (first !== undefined) {
    const summary = input.summaries.get(first);
    return [summary?.status ?? 'Failed', summary?.message ?? ''];
  }
  const why = expansionFailureOf(input.batch);
  if (why !== undefined) return ['Failed', why];
  return ['COMPLETED', 'Success'];
}

/**
 * Merritt's `batchDump`: `Submission ID`, `Job(s):` with the pending, completed and failed
 * counts (tab-indented, colon-led, as Merritt writes them), `User agent`, `Submission date`,
 * `Completion date` (Java's `Date.toString()`), `Status` and `Status Message`; a line whose value
 * is empty is left out, as Merritt does.
 */
export function merrittBatchDump(input: MerrittReportInput): string {
  const { batch, jobs } = input;
  const done = jobs.completed.length + jobs.failed.length + jobs.deleted.length;
  const pending = Math.max(0, batch.jobCount - done);
  const counts =
    `\n\n\t:Number of pending job(s): ${pending}\n` +
    `\t:Number of completed job(s): ${jobs.completed.length}\n` +
    `\t:Number of failed job(s): ${jobs.failed.length}\n`;
  const [status, message] = statusLines(input);
  const submitted = batch.submission.submissionDate;
  const line = (label: string, value: string | undefined): string => (value ? `${label}: ${value}\n` : '');
  return (
    `\nSubmission ID: ${batchUuidOf(batch)}\n` +
    `Job(s): ${counts}\n` +
    line('User agent', batch.submission.submitter) +
    line('Submission date', typeof submitted === 'string' ? submitted : undefined) +
    line('Completion date', javaDateString(input.now)) +
    line('Status', status) +
    line('Status Message', message)
  );
}

/** The verbose body (`getVerboseMsg`): the dataset, its identifier and its persistent URL. */
export function merrittVerboseBody(input: MerrittReportInput): string {
  const job = verboseJob(input);
  const ark = job?.ark;
  return (
    `The dataset "${job?.title ?? input.batch.submission.erc_what ?? 'null'}" was successfully uploaded at ${merrittIsoDate(input.now)}.\n` +
    `The identifier associated with this dataset is ${verboseId(input)}. Please retain\n` +
    'this email for your records.\n\n' +
    'To access this dataset and associated metadata, use the following URL: \n' +
    `${ark ? `${input.mail.purl}${ark}` : 'null'}\n`
  );
}

/** mrt-zk's `Job.localId()`: the local ids joined by `;`, empty when there are none. */
const localIdOf = (summary: JobSummary): string => (summary.localIds ?? []).join(';');

/**
 * `failed.json` (`{"failedJobs":[configuration + status + message + localID…]}`) when a job
 * failed, then `completed.json` (`{"completedJobs":[configuration + localID…]}`) when one
 * completed, as Merritt attaches them. Jobs that could not be read are left out.
 */
export function merrittAttachments(input: MerrittReportInput): ReportAttachment[] {
  const bid = batchUuidOf(input.batch);
  const described = (jids: string[]) =>
    jids.flatMap((jid) => {
      const summary = input.summaries.get(jid);
      return summary?.configuration
        ? [summary as JobSummary & { configuration: Record<string, unknown> }]
        : [];
    });
  const failed = described(input.jobs.failed).map((s) => ({
    ...s.configuration,
    status: s.status ?? 'Failed',
    message: s.message ?? '',
    localID: localIdOf(s),
  }));
  const completed = described(input.jobs.completed).map((s) => ({
    ...s.configuration,
    localID: localIdOf(s),
  }));
  const attachments: ReportAttachment[] = [];
  if (failed.length > 0)
    attachments.push({
      filename: 'failed.json',
      contentType: REPORT_ATTACHMENT_TYPE,
      description: `Error report for ${bid}`,
      content: JSON.stringify({ failedJobs: failed }),
    });
  if (completed.length > 0)
    attachments.push({
      filename: 'completed.json',
      contentType: REPORT_ATTACHMENT_TYPE,
      description: `Completion report for ${bid}`,
      content: JSON.stringify({ completedJobs: completed }),
    });
  return attachments;
}
