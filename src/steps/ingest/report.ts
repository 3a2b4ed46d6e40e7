import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { BatchSteps, ReportArgs } from '../contracts.js';
import type { QueueContext } from '../../queue/context.js';
import { isQueueError } from '../../queue/errors.js';
import { loadJob } from '../../queue/job-load.js';
import type { IngestSettings, Profile } from './contracts.js';
import { OutputError } from './output-errors.js';
import { composeReport, MAX_LISTED, type JobSummary } from './report-compose.js';

/** What the reporting step is built from. */
export interface ReportDeps {
  settings: Pick<IngestSettings, 'dataDir' | 'smtp'>;
  profileOf: (name: string) => Profile | undefined;
  /** Optional detail per job (ark, local ids, failure message); see {@link describeJobsFromQueue}. */
  describeJob?: (jid: string) => Promise<JobSummary | undefined>;
  /** Connection, greeting and socket timeout of the SMTP exchange (default 30 000 ms). */
  smtpTimeoutMs?: number;
}

type SmtpSettings = NonNullable<IngestSettings['smtp']>;

const DEFAULT_FROM = 'merritt-ingest@localhost';
const DESCRIBE_PARALLEL = 16;

/** Job summaries read from ZooKeeper: the ark and local ids of a job, or its failure message. */
export function describeJobsFromQueue(queue: QueueContext): (jid: string) => Promise<JobSummary | undefined> {
  return async (jid) => {
    try {
      const job = await loadJob(queue, jid);
      return {
        ...(job.identifiers?.primary_id ? { ark: job.identifiers.primary_id } : {}),
        ...(job.identifiers?.local_id?.length ? { localIds: job.identifiers.local_id } : {}),
        ...(job.status === 'failed' && job.message ? { message: job.message } : {}),
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
  const queue = [completed, failed, deleted].flatMap((jids) => jids.slice(0, MAX_LISTED));
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

/** The message as RFC 5322 bytes (what the outbox keeps). */
async function render(message: Mail.Options): Promise<Buffer> {
  const info = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail(message);
  return info.message as Buffer;
}

/** `<dataDir>/outbox/<bid>-<n>.eml`, n = 1 for the first report of the batch, then 2, 3… */
async function writeOutbox(dataDir: string, bid: string, eml: Buffer): Promise<string> {
  const dir = join(dataDir, 'outbox');
  await mkdir(dir, { recursive: true });
  for (let n = 1; ; n += 1) {
    const path = join(dir, `${bid}-${n}.eml`);
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(eml);
      } finally {
        await handle.close();
      }
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

async function sendSmtp(smtp: SmtpSettings, message: Mail.Options, timeoutMs: number, signal: AbortSignal) {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure ?? false,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const onAbort = (): void => transport.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await transport.sendMail(message);
  } catch (err) {
    signal.throwIfAborted();
    const why = err instanceof Error ? err.message : String(err);
    throw new OutputError('REPORT_FAILED', `SMTP ${smtp.host}:${smtp.port} did not take the report: ${why}`, {
      cause: err,
      retryable: true,
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    transport.close();
  }
}

/**
 * The reporting step (seed 003 "Reporting" / "UpdateReporting"): composes the depositor's
 * summary (counts, completed and failed jobs; for an update, what changed since the previous
 * report) and sends it by SMTP to the profile's `notifications` when SMTP is configured and
 * there is someone to send to, else writes it to `<dataDir>/outbox/<bid>-<n>.eml`. An SMTP
 * failure fails the report (REPORT_FAILED); the operator can update-report later. A report
 * re-run after a crash between sending and committing is sent again (at-least-once).
 */
export function createReportStep(deps: ReportDeps): BatchSteps['report'] {
  return async (args) => {
    const { batch, jobs, log } = args;
    const profile = deps.profileOf(batch.submission.profile_name);
    if (!profile)
      log.warn({ profile: batch.submission.profile_name }, 'profile not found: report goes to the outbox');
    const { subject, text } = composeReport({ ...args, summaries: await summarize(deps, args) });
    const to = profile?.notifications ?? [];
    const message: Mail.Options = {
      from: deps.settings.smtp?.from ?? DEFAULT_FROM,
      to,
      subject,
      text,
      headers: { 'X-Merritt-Batch': batch.batchId },
    };
    const smtp = deps.settings.smtp;
    if (smtp && to.length > 0) {
      await sendSmtp(smtp, message, deps.smtpTimeoutMs ?? 30_000, args.signal);
      log.info({ to, subject }, 'report sent');
    } else {
      const path = await writeOutbox(deps.settings.dataDir, batch.batchId, await render(message));
      log.info({ path, subject }, 'report written to the outbox');
    }
    return { completedJobs: jobs.completed.length, failedJobs: jobs.failed.length };
  };
}
