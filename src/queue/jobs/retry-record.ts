import type { Op } from '../../zk/index.js';
import { jobChild } from '../tree/paths.js';

/**
 * A job's step failures and its next attempt, in `/jobs/<jid>/retry` (a node of this engine's;
 * Merritt's services neither read nor write it). Written in the same multi as the commit of the
 * failure: `step.retry` (the job stays in its state and waits until `next_attempt`) or the move to
 * failed (no `next_attempt`: the class and the failures that led there stay with the failed job).
 * Any other commit of the job deletes it. It is honoured only while the job's status node is at
 * the version it was written with (`status_version`): a change by any other way (Merritt's
 * admin requeues the job, an operator fails it) makes it history.
 */
export interface JobRetry {
  /** The state whose step failed. */
  state: string;
  /** The version of the job's status node this record was committed with. */
  status_version: number;
  /** `transient` (another attempt may succeed) or `permanent` (it will not). */
  class: FailureClass;
  /** A short stable name of the failure: `HTTP_503`, `ECONNRESET`, `DIGEST_MISMATCH`, `TIMEOUT`… */
  code: string;
  message: string;
  /** Transient failures of this state's step so far (the attempts the policy counts). */
  failures: number;
  /** Attempts the policy allows in this state. */
  limit: number;
  /** When the next attempt is due (ISO 8601); absent once the job has failed. */
  next_attempt?: string;
  /** Each failure counted, oldest first (the last 10). */
  history: RetryHistoryEntry[];
}

export type FailureClass = 'transient' | 'permanent';

export interface RetryHistoryEntry {
  at: string;
  class: FailureClass;
  code: string;
  message: string;
  /** The engine that ran the attempt. */
  engine?: string;
}

const KEPT = 10;

export const retryPath = (jid: string): string => jobChild(jid, 'retry');

/** The node's data; anything unreadable reads as none (it never stops a job; the next write replaces it). */
export function decodeRetry(data: Buffer | undefined): JobRetry | undefined {
  if (!data || data.length === 0) return undefined;
  try {
    const value = JSON.parse(data.toString('utf8')) as Partial<JobRetry>;
    if (
      typeof value.state !== 'string' ||
      typeof value.status_version !== 'number' ||
      (value.class !== 'transient' && value.class !== 'permanent') ||
      typeof value.failures !== 'number' ||
      typeof value.limit !== 'number'
    )
      return undefined;
    return {
      state: value.state,
      status_version: value.status_version,
      class: value.class,
      code: typeof value.code === 'string' ? value.code : 'ERROR',
      message: typeof value.message === 'string' ? value.message : '',
      failures: value.failures,
      limit: value.limit,
      ...(typeof value.next_attempt === 'string' ? { next_attempt: value.next_attempt } : {}),
      history: Array.isArray(value.history) ? value.history.slice(-KEPT) : [],
    };
  } catch {
    return undefined;
  }
}

export function encodeRetry(retry: JobRetry): Buffer {
  return Buffer.from(JSON.stringify({ ...retry, history: retry.history.slice(-KEPT) }));
}

/** Where a job is: its state and the version of its status node. */
interface JobAt {
  status: string;
  statusVersion: number;
}

/** The record if it is the job's current one (written with the job's current status), else undefined. */
export function currentRetry(retry: JobRetry | undefined, job: JobAt): JobRetry | undefined {
  return retry?.status_version === job.statusVersion ? retry : undefined;
}

/** How long, in ms from `now`, the job still waits for its next attempt (0: it may run now). */
export function retryWaitMs(retry: JobRetry | undefined, job: JobAt, now: number): number {
  const current = currentRetry(retry, job);
  if (current?.state !== job.status || current.next_attempt === undefined) return 0;
  const at = Date.parse(current.next_attempt);
  return Number.isFinite(at) ? Math.max(0, at - now) : 0;
}

/** The write of `retry`: a create when the node is not there, else a set (the job's lock is held). */
export function retryOp(jid: string, exists: boolean, retry: JobRetry): Op {
  const data = encodeRetry(retry);
  return exists ? { op: 'set', path: retryPath(jid), data } : { op: 'create', path: retryPath(jid), data };
}
