import { join } from 'node:path';
import type { MerrittJobSteps } from '../contracts.js';
import type { JobRecord } from '../../queue/job-load.js';
import { sleep } from '../abortable-sleep.js';
import type { DownloadRecord, IngestSettings, Profile } from './contracts.js';
import { formatJobResult, type FormattedResult, type JobResult } from './notify-format.js';
import { OutputError } from './output-errors.js';
import { readJsonIfPresent } from './output-files.js';
import { displayUrl, excerpt, httpCall } from './output-http.js';
import { DOWNLOAD_RECORD, jobWorkDir, readStoredVersion } from './output-workdir.js';

/** What the notify step is built from. */
export interface NotifyDeps {
  settings: Pick<IngestSettings, 'workRoot'>;
  /** The profile of that name, or undefined when there is none. */
  profileOf: (name: string) => Profile | undefined;
  /** Attempts beyond the first on a network error, 408, 429 or 5xx (default 3). */
  retries?: number;
  /** Delay before the first retry, doubled for each next one (default 1000 ms). */
  retryBaseMs?: number;
  /** Per attempt (default 30 000 ms). */
  timeoutMs?: number;
}

const RETRYABLE_STATUS = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/** The result of a job, from its ZooKeeper record and what its working directory still holds. */
async function jobResult(settings: NotifyDeps['settings'], job: JobRecord): Promise<JobResult> {
  const workDir = jobWorkDir(settings, job);
  const stored = await readStoredVersion(workDir);
  const download = (await readJsonIfPresent(join(workDir, DOWNLOAD_RECORD))) as DownloadRecord | undefined;
  const files = Array.isArray(download?.files) ? download.files : undefined;
  const uuid = job.configuration.batchID ?? job.configuration.batch_uuid;
  return {
    jobId: job.jobId,
    batchId: job.batchId,
    ...(typeof uuid === 'string' ? { batchUuid: uuid } : {}),
    profile: job.configuration.profile_name,
    submitter: job.configuration.submitter,
    status: 'completed',
    primaryIdentifier: job.identifiers?.primary_id || stored?.ark,
    localIdentifiers: job.identifiers?.local_id ?? [],
    version: stored?.version,
    manifestUrl: job.inventory?.manifest_url ?? stored?.manifestUrl,
    fileCount: files?.length,
    totalBytes: files?.reduce((sum, f) => sum + f.size, 0),
    title: job.metadata?.erc_what,
  };
}

/** One attempt: undefined when it succeeded, else what went wrong and whether to try again. */
async function attempt(url: string, result: FormattedResult, timeoutMs: number, signal: AbortSignal) {
  try {
    const answer = await httpCall({
      url,
      method: 'POST',
      headers: { 'content-type': result.contentType },
      body: result.body,
      timeoutMs,
      signal,
    });
    if (answer.status >= 200 && answer.status < 300) return undefined;
    return { last: `${answer.status} "${excerpt(answer.text)}"`, retry: RETRYABLE_STATUS(answer.status) };
  } catch (err) {
    signal.throwIfAborted();
    return { last: err instanceof Error ? err.message : String(err), retry: true };
  }
}

/** POSTs with bounded retries and exponential backoff; fails naming the URL and the last answer. */
async function postWithRetries(deps: NotifyDeps, url: string, result: FormattedResult, signal: AbortSignal) {
  const retries = deps.retries ?? 3;
  const base = deps.retryBaseMs ?? 1000;
  let failure: { last: string; retry: boolean } | undefined;
  let tries = 0;
  do {
    if (tries > 0) await sleep(base * 2 ** (tries - 1), signal);
    tries += 1;
    failure = await attempt(url, result, deps.timeoutMs ?? 30_000, signal);
    if (!failure) return;
  } while (failure.retry && tries <= retries);
  throw new OutputError(
    'CALLBACK_FAILED',
    `callback ${displayUrl(url)} failed after ${tries} attempt(s); last answer: ${failure.last}`,
    { retryable: failure.retry },
  );
}

function callbackUrlOf(profile: Profile): string | undefined {
  const raw = profile.callbackUrl?.trim();
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new OutputError(
      'CALLBACK_FAILED',
      `profile ${profile.name}: callback ${raw} is not an http(s) URL`,
    );
  }
  return raw;
}

/**
 * The notify step (seed 003 "Notify → Completed"): when the job's profile has a `callbackUrl`,
 * POSTs the job's result there in the profile's `responseType` (JSON, XML or Turtle). Network
 * errors and 408/429/5xx are retried a few times with backoff; a callback that keeps failing
 * fails the job (an operator can requeue it to notify). No callback: nothing to do. A re-run
 * calls the callback again: receivers must accept a repeated result (at-least-once).
 */
export function createNotifyStep(deps: NotifyDeps): MerrittJobSteps['notify'] {
  return async ({ job, signal, log }): Promise<void> => {
    const name = job.configuration.profile_name;
    const profile = deps.profileOf(name);
    if (!profile) throw new OutputError('PROFILE_NOT_FOUND', `job ${job.jobId}: profile ${name} not found`);
    const url = callbackUrlOf(profile);
    if (!url) return;
    const result = formatJobResult(await jobResult(deps.settings, job), profile.responseType);
    await postWithRetries(deps, url, result, signal);
    log.info({ callback: displayUrl(url) }, 'callback notified');
  };
}
