import { join } from 'node:path';
import type { MerrittJobSteps } from '../contracts.js';
import type { JobRecord } from '../../queue/jobs/load.js';
import type { DownloadRecord, Profile } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { callbackTarget, packageNameOf } from '../services/callback.js';
import {
  deliverMail,
  keepInOutbox,
  mailSettingsOf,
  merrittEnvelope,
  type MailDelivery,
} from '../services/mail-send.js';
import { formatJobResult, type FormattedResult, type JobResult } from './notify-format.js';
import { isOutputError, OutputError } from '../output-errors.js';
import { readJsonIfPresent } from '../workdir/files.js';
import { withRetry } from '../services/http-retry.js';
import { displayUrl, excerpt, httpCall } from '../services/http-client.js';
import { DOWNLOAD_RECORD, jobWorkDir, readStoredVersion } from '../workdir/workdir.js';

/** What the notify step is built from. */
export interface NotifyDeps {
  settings: Pick<IngestSettings, 'workRoot' | 'dataDir' | 'smtp' | 'mail'>;
  /** The profile of that name, or undefined when there is none. */
  profileOf: (name: string) => Profile | undefined;
  /** Attempts beyond the first on a network error, 408, 429 or 5xx (default 3). */
  retries?: number;
  /** Delay before the first retry, doubled for each next one (default 1000 ms). */
  retryBaseMs?: number;
  /** Per attempt (default 30 000 ms). */
  timeoutMs?: number;
  /** SMTP timeout of the warning mail (default 30 000 ms). */
  smtpTimeoutMs?: number;
  now?: () => Date;
}

/** Where the callback goes: `{CallbackURL}/mc/{jid}` without user info, and the Basic header it became. */
type Target = ReturnType<typeof callbackTarget>;

const RETRYABLE_STATUS = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/** The result of a job, from its ZooKeeper record and what its working directory still holds. */
async function jobResult(deps: NotifyDeps, job: JobRecord, profile: Profile): Promise<JobResult> {
  const settings = deps.settings;
  const workDir = jobWorkDir(settings, job);
  const stored = await readStoredVersion(workDir);
  const download = (await readJsonIfPresent(join(workDir, DOWNLOAD_RECORD))) as DownloadRecord | undefined;
  const files = Array.isArray(download?.files) ? download.files : undefined;
  const uuid = job.configuration.batchID ?? job.configuration.batch_uuid;
  const ark = job.identifiers?.primary_id || stored?.ark;
  const submitted = job.configuration.submissionDate;
  return {
    jobId: job.jobId,
    batchId: job.batchId,
    ...(typeof uuid === 'string' ? { batchUuid: uuid } : {}),
    profile: job.configuration.profile_name,
    submitter: job.configuration.submitter,
    status: 'completed',
    primaryIdentifier: ark,
    localIdentifiers: job.identifiers?.local_id ?? [],
    version: stored?.version,
    manifestUrl: job.inventory?.manifest_url ?? stored?.manifestUrl,
    fileCount: files?.length,
    totalBytes: files?.reduce((sum, f) => sum + f.size, 0),
    title: job.metadata?.erc_what,
    creator: job.metadata?.erc_who,
    date: job.metadata?.erc_when,
    packageName: packageNameOf(job.configuration.payload_url),
    ...(typeof submitted === 'string' ? { submissionDate: submitted } : {}),
    completionDate: (deps.now ?? (() => new Date()))(),
    priority: job.priority,
    persistentUrl: ark ? `${mailSettingsOf(settings).purl}${ark}` : undefined,
    objectType: profile.objectType,
  };
}

/** An attempt that did not succeed: the answer (or network error) and whether to try again. */
class CallbackNotTaken extends Error {
  constructor(
    readonly last: string,
    readonly retry: boolean,
  ) {
    super(last);
  }
}

/** One attempt: resolves when the receiver took the result (2xx). */
async function attempt(target: Target, result: FormattedResult, timeoutMs: number, signal: AbortSignal) {
  let answer;
  try {
    answer = await httpCall({
      url: target.url,
      method: 'POST',
      headers: {
        'content-type': result.contentType,
        ...(target.authorization ? { authorization: target.authorization } : {}),
      },
      body: result.body,
      timeoutMs,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    throw new CallbackNotTaken(err instanceof Error ? err.message : String(err), true);
  }
  if (answer.status >= 200 && answer.status < 300) return;
  throw new CallbackNotTaken(`${answer.status} "${excerpt(answer.text)}"`, RETRYABLE_STATUS(answer.status));
}

/** POSTs with bounded retries and exponential backoff; fails naming the URL and the last answer. */
function postWithRetries(deps: NotifyDeps, target: Target, result: FormattedResult, signal: AbortSignal) {
  const gaveUp = (failure: unknown, attempts: number) =>
    failure instanceof CallbackNotTaken
      ? new OutputError(
          'CALLBACK_FAILED',
          `callback ${displayUrl(target.url)} failed after ${attempts} attempt(s); last answer: ${failure.last}`,
          { retryable: failure.retry },
        )
      : failure;
  return withRetry(
    {
      retries: deps.retries ?? 3,
      delayMs: deps.retryBaseMs ?? 1000,
      signal,
      retryable: (failure) => failure instanceof CallbackNotTaken && failure.retry,
      gaveUp,
    },
    () => attempt(target, result, deps.timeoutMs ?? 30_000, signal),
  );
}

function callbackOf(profile: Profile, jobId: string): Target {
  const raw = profile.callbackUrl?.trim() ?? '';
  const base = URL.canParse(raw) ? new URL(raw) : undefined;
  if (base?.protocol !== 'http:' && base?.protocol !== 'https:') {
    throw new OutputError(
      'CALLBACK_FAILED',
      `profile ${profile.name}: callback ${raw} is not an http(s) URL`,
    );
  }
  return callbackTarget(raw, jobId);
}

/**
 * HandlerCallback's warning when a callback could not be made: "[Warning] Callback request
 * failed" to the admin addresses, with the job and why. Without SMTP or admin addresses, or when
 * SMTP refuses it, it is kept in `<dataDir>/outbox/warnings/` so the failure is not only in a log.
 */
async function warnCallbackFailed(
  deps: NotifyDeps,
  job: JobRecord,
  profile: Profile,
  why: string,
  signal: AbortSignal,
) {
  const mail = mailSettingsOf(deps.settings);
  const server = mail.env === 'dev' ? ' [Development]' : mail.env === 'stg' ? ' [Stage]' : '';
  const owner = profile.context ? ` [owner: ${profile.context}]` : '';
  const { bcc: _bcc, ...envelope } = merrittEnvelope(deps.settings);
  const message = {
    ...envelope,
    to: mail.admin,
    subject: `[Warning] Callback request failed ${server}${owner}`,
    text: [
      'Job notification',
      `\tJob ID: ${job.jobId}`,
      `\tBatch ID: ${job.batchId}`,
      `\tProfile: ${profile.name}`,
      ...(job.identifiers?.primary_id ? [`\tPrimary ID: ${job.identifiers.primary_id}`] : []),
      `\tJob status: COMPLETED`,
      `\tCallback: ${why}`,
      '',
    ].join('\n'),
    headers: { 'X-Merritt-Job': job.jobId },
  };
  const delivery: MailDelivery = { settings: deps.settings, smtpTimeoutMs: deps.smtpTimeoutMs };
  const place = { outbox: 'outbox/warnings', key: job.jobId, what: 'callback warning' };
  try {
    return await deliverMail(delivery, message, { ...place, signal });
  } catch (err) {
    signal.throwIfAborted();
    return { via: 'outbox' as const, path: await keepInOutbox(delivery, message, place), err };
  }
}

/**
 * The notify step (seed 003 "Notify → Completed", Merritt's HandlerCallback): when the job's
 * profile has a `callbackUrl`, POSTs the job as Merritt's JobState (`{"job:jobState":{…}}`, or
 * XML or Turtle by the profile's format) to `{callbackUrl}/mc/{jid}`, always as
 * `Content-Type: application/json`, with user info in the URL sent as Basic auth. Network errors
 * and 408/429/5xx are retried a few times with backoff. As in Merritt, a callback that keeps
 * failing does not fail the job: it is logged and the admins get a warning mail (kept in the
 * outbox when it cannot be sent), and the job completes. No callback: nothing to do. A re-run
 * calls the callback again: receivers must accept a repeated result (at-least-once).
 */
export function createNotifyStep(deps: NotifyDeps): MerrittJobSteps['notify'] {
  return async ({ job, signal, log }): Promise<void> => {
    const name = job.configuration.profile_name;
    const profile = deps.profileOf(name);
    if (!profile) throw new OutputError('PROFILE_NOT_FOUND', `job ${job.jobId}: profile ${name} not found`);
    if (!profile.callbackUrl?.trim()) return;
    try {
      const target = callbackOf(profile, job.jobId);
      const result = formatJobResult(await jobResult(deps, job, profile), profile.responseType);
      await postWithRetries(deps, target, result, signal);
      log.info({ callback: displayUrl(target.url) }, 'callback notified');
    } catch (err) {
      if (signal.aborted || !isOutputError(err, 'CALLBACK_FAILED')) throw err;
      const warned = await warnCallbackFailed(deps, job, profile, err.message, signal);
      log.warn(
        { err, warning: warned.via === 'outbox' ? warned.path : 'sent' },
        'callback failed; the job completes anyway, as in Merritt, and the admins are warned',
      );
    }
  };
}
