import { expansionFailureOf } from '../../../machines/index.js';
import type { BatchJobLists } from '../contracts.js';
import type { BatchRecord } from '../../queue/batches/load.js';
import type { StatusReport } from '../../queue/tree/records.js';
import type { Profile } from '../ingest-contracts.js';
import { DEFAULT_MAIL_SETTINGS } from '../../config/ingest-settings.js';
import { isVerbose } from '../formats/mail.js';
import type { MailSettings } from '../../config/ingest-settings.js';
import {
  merrittAttachments,
  merrittBatchDump,
  merrittReportSubject,
  merrittVerboseBody,
  type JobSummary,
  type MerrittReportInput,
  type ReportAttachment,
} from '../formats/report.js';

export type { JobSummary, ReportAttachment } from '../formats/report.js';

export interface ReportInput {
  batch: BatchRecord;
  update: boolean;
  jobs: BatchJobLists;
  previous: StatusReport | undefined;
  /** Summaries of (some of) the jobs; jobs missing here are listed by id only. */
  summaries: ReadonlyMap<string, JobSummary>;
  /** The batch's profile: `Aggregate` and `NotificationType` shape the subject and body. */
  profile?: Profile;
  /** Default: production subjects, n2t.net. */
  mail?: MailSettings;
  /** The completion date the report gives (default: now). */
  now?: Date;
}

export interface ComposedReport {
  subject: string;
  text: string;
  /** `failed.json` and `completed.json`, when a job failed or completed. */
  attachments: ReportAttachment[];
}

/** Jobs listed by name per section; the rest are counted ("… and 1200 more"). */
export const MAX_LISTED = 500;

/** What changed since the previous report (seed 003 update-reporting). */
export interface ReportChanges {
  /** Completed now, not reported as successful before (mostly jobs requeued after failing). */
  succeededSince: string[];
  /** Failed before and still failed. */
  stillFailing: string[];
  /** Failed now, not failed in the previous report. */
  newlyFailed: string[];
}

export function changesSince(jobs: BatchJobLists, previous: StatusReport | undefined): ReportChanges {
  const before = new Set(previous?.successful_jobs ?? []);
  const failedBefore = new Set(previous?.failed_jobs ?? []);
  return {
    succeededSince: jobs.completed.filter((jid) => !before.has(jid)),
    stillFailing: jobs.failed.filter((jid) => failedBefore.has(jid)),
    newlyFailed: jobs.failed.filter((jid) => !failedBefore.has(jid)),
  };
}

function describe(jid: string, summary: JobSummary | undefined): string {
  if (!summary) return `  ${jid}`;
  const parts = [jid];
  if (summary.ark) parts.push(summary.ark);
  if (summary.localIds?.length) parts.push(`local id ${summary.localIds.join(', ')}`);
  if (summary.message) parts.push(summary.message.replace(/\s+/g, ' '));
  return `  ${parts.join('  ')}`;
}

function section(title: string, jids: string[], summaries: ReadonlyMap<string, JobSummary>): string[] {
  if (jids.length === 0) return [];
  const listed = jids.slice(0, MAX_LISTED).map((jid) => describe(jid, summaries.get(jid)));
  const more = jids.length > MAX_LISTED ? [`  … and ${jids.length - MAX_LISTED} more`] : [];
  return ['', `${title} (${jids.length}):`, ...listed, ...more];
}

/** This engine's own details, after Merritt's lines: the batch id, profile, payload and title. */
function details(input: ReportInput): string[] {
  const { batch, jobs } = input;
  const s = batch.submission;
  return [
    `Batch: ${batch.batchId}${input.update ? ' (update report)' : ''}`,
    `Profile: ${s.profile_name}`,
    `Payload: ${s.payload_url}`,
    ...(s.erc_what ? [`Title: ${s.erc_what}`] : []),
    `Deleted job(s): ${jobs.deleted.length}`,
  ];
}

function updateBody(input: ReportInput): string[] {
  const changes = changesSince(input.jobs, input.previous);
  const since = input.previous?.last_modified ? ` (${input.previous.last_modified})` : '';
  const nothing =
    changes.succeededSince.length + changes.newlyFailed.length === 0
      ? ['', 'No job changed since then.']
      : [];
  return [
    '',
    `Changes since the previous report${since}:`,
    ...nothing,
    ...section('Completed since the previous report', changes.succeededSince, input.summaries),
    ...section('Still failing', changes.stillFailing, input.summaries),
    ...section('Failed since the previous report', changes.newlyFailed, input.summaries),
  ];
}

/** Why the batch could not be expanded into jobs, when it could not: the first thing the depositor reads. */
function expansionFailure(batch: BatchRecord): string[] {
  const why = expansionFailureOf(batch);
  if (why === undefined) return [];
  return [
    '',
    `The batch could not be expanded into jobs: ${why}`,
    'Correct the submission and submit it again.',
  ];
}

/**
 * The depositor's report, as Merritt's batch report (merritt-protocols.md §4 (b)): Merritt's
 * subject and `batchDump` body (or, with `NotificationType: verbose`, the dataset message), then
 * this engine's details (why a batch could not be expanded, what changed since the previous
 * report, the jobs by name), and the `failed.json` / `completed.json` attachments. An update
 * report has the same shape.
 */
export function composeReport(input: ReportInput): ComposedReport {
  const { batch, jobs } = input;
  const merritt: MerrittReportInput = {
    batch,
    jobs,
    summaries: input.summaries,
    profile: input.profile,
    mail: input.mail ?? DEFAULT_MAIL_SETTINGS,
    now: input.now ?? new Date(),
  };
  const first = isVerbose(input.profile) ? merrittVerboseBody(merritt) : merrittBatchDump(merritt);
  const body = input.update
    ? updateBody(input)
    : [
        ...section('Completed jobs', jobs.completed, input.summaries),
        ...section('Failed jobs', jobs.failed, input.summaries),
      ];
  const deleted = section('Deleted jobs', jobs.deleted, input.summaries);
  const ours = [...details(input), ...expansionFailure(batch), ...body, ...deleted, ''].join('\n');
  return {
    subject: merrittReportSubject(merritt),
    text: `${first}\n${ours}`,
    attachments: merrittAttachments(merritt),
  };
}
