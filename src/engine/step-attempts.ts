import { hostname } from 'node:os';
import type { EventObject } from 'xstate';
import type { AcquiredJob } from '../queue/jobs/acquire.js';
import {
  attemptsOp,
  attemptsPath,
  decodeAttempts,
  encodeAttempts,
  endedLast,
  interruptedAttempts,
  poisonMessage,
  withAttempt,
  type JobAttempts,
  type StepAttempt,
} from '../queue/jobs/attempts.js';
import type { HeldLock } from '../queue/locks/lock.js';
import { commitOps } from '../queue/tree/context.js';
import type { Op } from '../zk/index.js';
import type { EngineDeps } from './deps.js';
import { StepAbortedError } from './step-runner.js';

/** Attempts that may end with their process or session before a job is failed as poison. */
export const DEFAULT_POISON_ATTEMPTS = 3;

const DEFAULT_ENGINE_ID = `${hostname()}-${process.pid}`;

/**
 * What to do with a job whose step is about to run: run it (`suspect`: an earlier attempt ended
 * with its process or session, so it runs alone, see StepIsolation) once its attempt is recorded
 * (`record`, resolving with the job as recorded), or fail it as poison.
 */
export type BeforeStep =
  | { run: true; suspect: boolean; record: () => Promise<AcquiredJob> }
  | { run: false; event: EventObject & { message: string } };

/** A new attempt by this engine under the session of `lock`. */
export function newAttempt(deps: EngineDeps, lock: HeldLock, now = deps.queue.now()): StepAttempt {
  return { engine: deps.engineId ?? DEFAULT_ENGINE_ID, session: lock.sessionId, started: now.toISOString() };
}

/**
 * Should this job's lock be let go without a commit, its attempt is marked as handed back in the
 * same multi: an attempt this engine could end so is not one that took its process down.
 */
export function markOnRelease(deps: EngineDeps, lock: HeldLock, jid: string, attempts: JobAttempts): void {
  lock.releaseOps = (): Op[] => [
    attemptsOp(jid, true, endedLast(attempts, 'handed back', deps.queue.now().toISOString())),
  ];
  const startedAt = performance.now();
  lock.onLost = () => markSessionLost(deps, jid, lock.sessionId, startedAt);
}

/**
 * After the session of a step's lock was replaced while the step was handed back: the attempt is
 * marked as ended by ZooKeeper's absence (a server restart, a partition) when this process
 * turned its event loop all along (no stall long enough to cost a session since the attempt
 * began: a busy machine's second of garbage collection is not one) and nobody took the job
 * since (its last attempt is still this one: the write checks the node's version). A process
 * that stalled (a step hogging the CPU, a frozen VM) leaves it unmarked: counted, as a step that
 * took its session down may be the cause.
 */
async function markSessionLost(
  deps: EngineDeps,
  jid: string,
  session: string,
  startedAt: number,
): Promise<void> {
  if (deps.stalledSince?.(startedAt) !== false) return;
  const { zk } = deps.queue;
  const node = await zk.getData(attemptsPath(jid)).catch(() => undefined);
  const attempts = decodeAttempts(node?.data);
  const last = attempts?.attempts.at(-1);
  if (!node || !attempts || last?.session !== session || last.ended !== undefined) return;
  const ended = endedLast(
    attempts,
    'session lost while ZooKeeper did not answer',
    deps.queue.now().toISOString(),
  );
  await zk.setData(attemptsPath(jid), encodeAttempts(ended), node.stat.version);
}

/**
 * Poison containment (issue 32), before a job's step runs: the attempts of this step that ended
 * with their process or session are counted; at `poisonAttempts` the job is failed with a
 * message naming the step, the engines and how each attempt ended, without running the step
 * again. Otherwise the step runs once its attempt is recorded (the commit of a hand-over already
 * did). A record that fails hands the job back (StepAbortedError): nothing has run.
 */
export function beforeJobStep(deps: EngineDeps, acquired: AcquiredJob): BeforeStep {
  const { job } = acquired;
  // Handed over: the commit that handed it wrote this attempt and marked its lock's release
  // (the job descriptor's `committed`, items/job.ts), so there is nothing left to record.
  if (acquired.attempt !== undefined && job.attempts)
    return { run: true, suspect: false, record: () => Promise.resolve(acquired) };
  const interrupted = interruptedAttempts(job.attempts, job, acquired.lock.sessionId);
  deps.metrics?.attemptsInterrupted(job.status, interrupted.length);
  const limit = deps.poisonAttempts ?? DEFAULT_POISON_ATTEMPTS;
  const failure = deps.queue.lifecycle.failureEvent(job.status);
  if (limit > 0 && interrupted.length >= limit && failure !== undefined) {
    deps.metrics?.jobPoisoned(job.status);
    const message = poisonMessage(job.status, interrupted, limit);
    deps.log.error({ jobId: job.jobId, state: job.status, attempts: interrupted }, message);
    return { run: false, event: { type: failure, message } };
  }
  if (interrupted.length > 0)
    deps.log.warn(
      { jobId: job.jobId, state: job.status, attempts: interrupted },
      `job ${job.jobId}: ${interrupted.length} earlier attempt(s) at this step ended with their process or session; it runs alone`,
    );
  return { run: true, suspect: interrupted.length > 0, record: () => recordAttempt(deps, acquired) };
}

/** Writes the attempt of a job taken from its folder (the lock checked in the same multi). */
async function recordAttempt(deps: EngineDeps, acquired: AcquiredJob): Promise<AcquiredJob> {
  const { job, lock } = acquired;
  const attempt = newAttempt(deps, lock);
  const attempts = withAttempt(job.attempts, job, attempt);
  const ops: Op[] = [
    { op: 'check', path: lock.path },
    attemptsOp(job.jobId, job.attemptsNode === true, attempts),
  ];
  try {
    await commitOps(deps.queue, ops);
  } catch (err) {
    throw new StepAbortedError(err);
  }
  markOnRelease(deps, lock, job.jobId, attempts);
  return { ...acquired, job: { ...job, attempts, attemptsNode: true }, attempt };
}
