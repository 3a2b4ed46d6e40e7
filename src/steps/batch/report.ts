import type Mail from 'nodemailer/lib/mailer/index.js';
import { jobWireNames, type JobState } from '../../../machines/index.js';
import type { BatchSteps, ReportArgs } from '../contracts.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { isQueueError } from '../../queue/tree/errors.js';
import { loadJob } from '../../queue/jobs/load.js';
import type { BatchRecord } from '../../queue/batches/load.js';
import type { Profile } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { isSuppressed } from '../formats/mail.js';
import { deliverMail, mailSettingsOf, merrittEnvelope } from '../services/mail-send.js';
import { composeReport, type JobSummary } from './report-compose.js';

/** What the reporting step is built from. */
export interface ReportDeps {
  settings: Pick<IngestSettings, 'dataDir' | 'smtp' | 'mail'>;
  profileOf: (name: string) => Profile | undefined;
  /** Optional detail per job (ark, local ids, configuration, failure); see {@link describeJobsFromQueue}. */
  describeJob?: (jid: string) => Promise<JobSummary | undefined>;
  /** Connection, greeting and socket timeout of the SMTP exchange (default 30 000 ms). */
  smtpTimeoutMs?: number;
  now?: () => Date;
}

const DESCRIBE_PARALLEL = 16;
/**
 * Jobs described per list (completed, failed, deleted): the attachments carry each one's
 * configuration, as Merritt's do; beyond this many a list is counted, not detailed, so one
 * huge batch cannot hold the process's memory.
 */
export const MAX_DESCRIBED = 10_000;

/** Job summaries read from ZooKeeper: the ark, local ids, configuration and title of a job, or its failure. */
export function describeJobsFromQueue(queue: QueueContext): (jid: string) => Promise<JobSummary | undefined> {
  return async (jid) => {
    try {
      const job = await loadJob(queue, jid);
      return {
        ...(job.identifiers?.primary_id ? { ark: job.identifiers.primary_id } : {}),
        ...(job.identifiers?.local_id?.length ? { localIds: job.identifiers.local_id } : {}),
        ...(queue.lifecycle.isFailed(job.status) && job.message ? { message: job.message } : {}),
        ...(job.metadata?.erc_what ? { title: job.metadata.erc_what } : {}),
        configuration: { ...job.configuration },
        status: jobWireNames[job.status as JobState] ?? job.status,
      };
    } catch (err) {
      if (isQueueError(err, 'NOT_FOUND') || isQueueError(err, 'ITEM_INVALID')) return undefined;
      throw err;
    }
  };
}

/** Summaries of the jobs the report lists; a job that cannot be described is listed by id only. */
async function summarize(deps: ReportDeps, args: ReportArgs): Promise<Map<string, JobSummary>> {
  const summaries = new Map<string, JobSummary>();
  const describe = deps.describeJob;
  if (!describe) return summaries;
  const { completed, failed, deleted } = args.jobs;
  const queue = [completed, failed, deleted].flatMap((jids) => jids.slice(0, MAX_DESCRIBED));
  const worker = async (): Promise<void> => {
    for (let jid = queue.shift(); jid !== undefined; jid = queue.shift()) {
      args.signal.throwIfAborted();
      const summary = await describe(jid).catch((err: unknown) => {
        args.log.warn({ err, jobId: jid }, 'could not describe a job for the report');
        return undefined;
      });
      if (summary) summaries.set(jid, summary);
    }
  };
  await Promise.all(Array.from({ length: DESCRIBE_PARALLEL }, worker));
  return summaries;
}

/**
 * Who the report goes to (§4): the submission's alternative `notification` address when it has
 * one, else every address of the profile.
 */
export function reportRecipients(batch: BatchRecord, profile: Profile | undefined): string[] {
  const alternative = batch.submission.notification;
  if (typeof alternative === 'string' && alternative.trim() !== '')
    return alternative
      .split(/[;,]/)
      .map((a) => a.trim())
      .filter(Boolean);
  return profile?.notifications ?? [];
}

/**
 * The reporting step (seed 003 "Reporting" / "UpdateReporting", Merritt's batch-report
 * HandlerNotification, merritt-protocols.md §4 (b)): composes "Submission Processed" (subject,
 * counts body, `failed.json` / `completed.json`) and sends it by SMTP when configured and there
 * is someone to send to (the submission's `notification` address, else the profile's, Bcc
 * `MRTQ_MAIL_ADMIN`), else writes it to `<dataDir>/outbox/<bid>-<n>.eml`. A profile with
 * `NotificationSuppression: full` gets no mail (a log line says so). An SMTP failure fails the
 * report (REPORT_FAILED); the operator can update-report later. A report re-run after a crash
 * between sending and committing is sent again (at-least-once).
 */
export function createReportStep(deps: ReportDeps): BatchSteps['report'] {
  return async (args) => {
    const { batch, jobs, log } = args;
    const counts = { completedJobs: jobs.completed.length, failedJobs: jobs.failed.length };
    const profile = deps.profileOf(batch.submission.profile_name);
    if (!profile)
      log.warn(
        { profile: batch.submission.profile_name },
        "profile not found: the report goes to the submission's notification address, else the outbox",
      );
    if (isSuppressed(profile, ['full'])) {
      log.info({ profile: profile?.name }, 'report not sent: the profile has NotificationSuppression: full');
      return counts;
    }
    const now = (deps.now ?? (() => new Date()))();
    const summaries = await summarize(deps, args);
    const mail = mailSettingsOf(deps.settings);
    const report = composeReport({ ...args, summaries, profile, mail, now });
    const to = reportRecipients(batch, profile);
    const message: Mail.Options = {
      ...merrittEnvelope(deps.settings),
      to,
      subject: report.subject,
      text: report.text,
      attachments: report.attachments.map((a) => ({
        filename: a.filename,
        content: a.content,
        contentType: a.contentType,
        contentDisposition: 'attachment',
        headers: { 'Content-Description': a.description },
      })),
      headers: { 'X-Merritt-Batch': batch.batchId },
    };
    // Sent when there is a recipient (the Bcc admins count, as in Merritt), else kept in the outbox.
    const delivered = await deliverMail(
      { settings: deps.settings, smtpTimeoutMs: deps.smtpTimeoutMs },
      message,
      {
        outbox: 'outbox',
        key: batch.batchId,
        what: 'report',
        signal: args.signal,
      },
    );
    if (delivered.via === 'smtp') log.info({ to, subject: report.subject }, 'report sent');
    else log.info({ path: delivered.path, subject: report.subject }, 'report written to the outbox');
    return counts;
  };
}
