import type { Op } from '../../zk/index.js';
import { normaliseSessionId } from '../../zk/session-id.js';
import { jobChild } from '../tree/paths.js';

/**
 * The step attempts of a job in its current working state, in `/jobs/<jid>/attempts` (a node of
 * this engine's; Merritt's services neither read nor write it). An attempt is written before its
 * step runs (in the commit that hands the job over within a process, or on its own when the job
 * is taken from its folder), marked `ended` when its lock is let go without a commit (handed
 * back: shutting down, paused, ZooKeeper away), and the node is deleted by the commit that ends
 * the step. So an attempt left without `ended` in the job's current state is one whose process
 * died, or whose session expired, mid-step: what poison containment counts (issue 32).
 */
export interface StepAttempt {
  /** The engine that ran it (`/engines/<id>`). */
  engine: string;
  /** Its ZooKeeper session (hex). */
  session: string;
  /** When it started (ISO 8601). */
  started: string;
  /** How it ended without a commit, when this engine could still say so. */
  ended?: string;
}

export interface JobAttempts {
  /** The state whose step these attempts ran. */
  state: string;
  /**
   * The version of the job's status node they ran at: any commit (a step's, an operator's
   * requeue or fail, another tool's) moves it on, so attempts of before never count again.
   */
  statusVersion: number;
  attempts: StepAttempt[];
}

/** Attempts kept in the node: the last ones (a job handed back a thousand times stays small). */
const KEPT = 20;

export const attemptsPath = (jid: string): string => jobChild(jid, 'attempts');

/**
 * Reads the node's data; anything unreadable (another tool's, a half-written one) reads as no
 * attempts: it never stops a job, and the next write replaces it.
 */
export function decodeAttempts(data: Buffer | undefined): JobAttempts | undefined {
  if (!data || data.length === 0) return undefined;
  try {
    const value = JSON.parse(data.toString('utf8')) as Partial<JobAttempts>;
    if (
      typeof value.state !== 'string' ||
      typeof value.statusVersion !== 'number' ||
      !Array.isArray(value.attempts)
    )
      return undefined;
    const attempts = value.attempts.filter(
      (a): a is StepAttempt =>
        typeof a === 'object' &&
        a !== null &&
        typeof a.engine === 'string' &&
        typeof a.session === 'string' &&
        typeof a.started === 'string',
    );
    return { state: value.state, statusVersion: value.statusVersion, attempts };
  } catch {
    return undefined;
  }
}

export function encodeAttempts(attempts: JobAttempts): Buffer {
  return Buffer.from(JSON.stringify({ ...attempts, attempts: attempts.attempts.slice(-KEPT) }));
}

/** Where a job is: its state and the version of its status node. */
export interface JobAt {
  status: string;
  statusVersion: number;
}

function sameStep(attempts: JobAttempts | undefined, job: JobAt): attempts is JobAttempts {
  return attempts?.state === job.status && attempts.statusVersion === job.statusVersion;
}

const sameSession = (a: string, b: string): boolean => normaliseSessionId(a) === normaliseSessionId(b);

/**
 * Attempts at the job's current step that ended with their process or session (no commit, no
 * `ended`). Those of `liveSession` (the session now taking the job) are not: a session still
 * alive, in a process still running, handed its attempt back, only its mark was not written
 * (ZooKeeper away when the lock was let go: a restart under load left 3 such and failed a job).
 */
export function interruptedAttempts(
  attempts: JobAttempts | undefined,
  job: JobAt,
  liveSession?: string,
): StepAttempt[] {
  if (!sameStep(attempts, job)) return [];
  return attempts.attempts.filter(
    (a) => a.ended === undefined && (liveSession === undefined || !sameSession(a.session, liveSession)),
  );
}

/**
 * The attempts at the job's current step after one more starts: earlier ones of the same step
 * kept, and those of the new attempt's own session left unmarked marked now (see
 * interruptedAttempts: that session is alive, so they were handed back).
 */
export function withAttempt(before: JobAttempts | undefined, job: JobAt, attempt: StepAttempt): JobAttempts {
  const earlier = (sameStep(before, job) ? before.attempts : []).map((a) =>
    a.ended === undefined && sameSession(a.session, attempt.session)
      ? { ...a, ended: `handed back (seen at ${attempt.started})` }
      : a,
  );
  return { state: job.status, statusVersion: job.statusVersion, attempts: [...earlier, attempt] };
}

/** The attempts with the last one marked as ended by `how` (its lock let go without a commit). */
export function endedLast(attempts: JobAttempts, how: string, at: string): JobAttempts {
  const last = attempts.attempts.at(-1);
  if (!last) return attempts;
  return {
    ...attempts,
    attempts: [...attempts.attempts.slice(0, -1), { ...last, ended: `${how} at ${at}` }],
  };
}

/** The write of `attempts`: a create when the node is not there, else a set (the lock is held). */
export function attemptsOp(jid: string, exists: boolean, attempts: JobAttempts): Op {
  const data = encodeAttempts(attempts);
  return exists
    ? { op: 'set', path: attemptsPath(jid), data }
    : { op: 'create', path: attemptsPath(jid), data };
}

/** What poison containment says of a job whose step ended with its process, `limit` times. */
export function poisonMessage(state: string, interrupted: readonly StepAttempt[], limit: number): string {
  const each = interrupted.map((a) => `engine ${a.engine} (session ${a.session}) at ${a.started}`).join('; ');
  return (
    `poison: the ${state} step of this job was started ${interrupted.length} times and each attempt ended ` +
    `with its process or its ZooKeeper session, without a commit or a failure (${each}); ` +
    `failed after ${limit} so it cannot take more engines down. Find the cause in those engines' logs, ` +
    `then requeue the job (a requeue starts the count again)`
  );
}
