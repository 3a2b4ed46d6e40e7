import type { EventObject } from 'xstate';
import type { JobContext } from '../../machines/index.js';
import type { AcquiredJob } from '../queue/job-acquire.js';
import { commitJobTransition, nextJobRecord, plannedJobRecord } from '../queue/job-transition.js';
import { loadJob } from '../queue/job-load.js';
import { jobRef } from '../queue/paths.js';
import { basename } from '../zk/index.js';
import { isQueueError } from '../queue/errors.js';
import type { Span } from '@opentelemetry/api';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { markFailed, withSpan } from '../telemetry/span.js';
import { contextOfTraceparent } from '../telemetry/trace-context.js';
import type { EngineDeps, HandOver } from './deps.js';
import { releaseEventually } from './lock-release.js';
import { isIndeterminate, settle } from './indeterminate.js';
import { runMachineStepPlanned, StepAbortedError, type PlannedNext } from './step-runner.js';
import { STEP_WRITE_KEYS, type StepWrites } from '../steps/contracts.js';

/** A pending job: held when its collection is on hold, otherwise on to estimating. Resolves with the state committed. */
export async function takePendingJob(deps: EngineDeps, acquired: AcquiredJob): Promise<string | undefined> {
  const collection = acquired.job.configuration.collection;
  const held = collection !== undefined && deps.heldCollections().has(collection);
  return commit(deps, acquired, { type: held ? 'job.held' : 'job.acquired' }, {});
}

/**
 * Runs the step of a job's stored state through the job machine and commits the event the
 * machine derived (lock released in the same multi). A step aborted by session loss or
 * shutdown commits nothing; a commit refused because the lock or status moved on is discarded.
 * Resolves with the state committed (undefined when nothing was).
 */
export function runJobStep(
  deps: EngineDeps,
  acquired: AcquiredJob,
  signal: AbortSignal,
): Promise<string | undefined> {
  const { job } = acquired;
  const attributes = {
    [Attr.jobId]: job.jobId,
    [Attr.batchId]: job.batchId,
    [Attr.state]: job.status,
    [Attr.priority]: job.priority,
    [Attr.retryCount]: job.retryCount,
    [Attr.profile]: job.configuration.profile_name,
  };
  // The step continues the batch's trace, stored with the job when its batch was expanded.
  return withSpan(
    SpanName.step(job.status),
    attributes,
    (span) => stepAndCommit(deps, acquired, signal, span),
    { parent: contextOfTraceparent(job.configuration.traceparent) },
  );
}

async function stepAndCommit(
  deps: EngineDeps,
  acquired: AcquiredJob,
  signal: AbortSignal,
  span: Span,
): Promise<string | undefined> {
  const { job } = acquired;
  const { lifecycle } = deps.queue;
  const step = lifecycle.stepOf(job.status);
  const run = step === undefined ? undefined : deps.jobSteps.steps[step];
  if (step === undefined || run === undefined)
    throw new Error(`no step runs in state ${job.status}${step ? ` (step ${step} was not given)` : ''}`);
  const log = deps.log.child({ jobId: job.jobId, batchId: job.batchId, state: job.status });
  try {
    await deps.beforeStep?.(acquired.lock);
  } catch (err) {
    await discard(deps, acquired, 'stalled', err);
    markFailed(span, 'lock lost while stalled');
    return undefined;
  }
  deps.ledger.record({ kind: 'start', item: job.jobId, state: job.status, version: job.statusVersion });
  let writes: StepWrites = {};
  const { machine, input } = lifecycle.restore(job);
  let event: EventObject;
  let next: PlannedNext | undefined;
  const started = performance.now();
  try {
    ({ event, next } = await runMachineStepPlanned<EventObject>({
      machine,
      input,
      actorNames: lifecycle.steps,
      actor: step,
      signal,
      inspect: deps.inspect,
      run: async (stepSignal) => {
        const output = await run({ job, signal: stepSignal, log });
        if (output && typeof output === 'object' && STEP_WRITE_KEYS.some((key) => key in output))
          writes = output;
        return output;
      },
    }));
  } catch (err) {
    await discard(deps, acquired, err instanceof StepAbortedError ? 'aborted' : 'step error', err);
    if (!(err instanceof StepAbortedError)) throw err;
    markFailed(span, 'aborted');
    return undefined;
  }
  span.setAttribute(Attr.event, event.type);
  deps.metrics?.stepDuration(job.status, (performance.now() - started) / 1000);
  if ('message' in event && event.type.endsWith('.failed')) {
    markFailed(span, typeof event.message === 'string' ? event.message : event.type);
    deps.metrics?.stepFailed(job.status);
  }
  const to = await commit(deps, acquired, event, writes, next);
  if (to) span.setAttribute(Attr.stateTo, to);
  if (to === 'completed') await cleanupCompleted(deps, acquired, log);
  return to;
}

/** The slot this job's next state offers in this process, if it may go on here (see EngineDeps.handOver). */
function handOverFor(
  deps: EngineDeps,
  job: AcquiredJob['job'],
  next: string,
  priority: number,
): HandOver | undefined {
  if (next === job.status || !deps.queue.lifecycle.isWorking(next) || !deps.handOver) return undefined;
  return deps.handOver(next, basename(jobRef(next, priority, job.jobId)));
}

/** The job after `event`: from the step's plan when its pure run made one (no second evaluation of the machine). */
function plannedOrNext(
  deps: EngineDeps,
  job: AcquiredJob['job'],
  event: EventObject,
  writes: StepWrites,
  next: PlannedNext | undefined,
): AcquiredJob['job'] {
  return next
    ? plannedJobRecord(job, next.value, next.context as JobContext, writes)
    : nextJobRecord(deps.queue.lifecycle, job, event, writes);
}

async function commit(
  deps: EngineDeps,
  acquired: AcquiredJob,
  event: EventObject,
  writes: StepWrites,
  next?: PlannedNext,
  retried = false,
): Promise<string | undefined> {
  const { job } = acquired;
  const planned = plannedOrNext(deps, job, event, writes, next);
  const handOver = handOverFor(deps, job, planned.status, planned.priority);
  try {
    const { job: next } = await commitJobTransition(deps.queue, acquired, event, {
      ...writes,
      planned,
      release: handOver === undefined,
    });
    deps.ledger.record({
      kind: 'commit',
      item: job.jobId,
      state: job.status,
      version: job.statusVersion,
      event: event.type,
      to: next.status,
    });
    handOver?.accept({ job: next, lock: acquired.lock, ref: jobRef(next.status, next.priority, next.jobId) });
    return next.status;
  } catch (err) {
    handOver?.cancel();
    if (isQueueError(err) && (err.code === 'LOCK_LOST' || err.code === 'CONFLICT')) {
      deps.ledger.record({
        kind: 'discard',
        item: job.jobId,
        state: job.status,
        version: job.statusVersion,
        event: event.type,
        reason: err.code,
      });
      deps.log.warn(
        { jobId: job.jobId, state: job.status, event: event.type, err },
        'stale step result discarded',
      );
      return undefined;
    }
    if (isIndeterminate(err))
      return settleCommit(deps, acquired, event, writes, retried, err, handOver !== undefined, next);
    await discard(deps, acquired, 'commit error', err);
    throw err;
  }
}

/** A commit that timed out or lost its connection may have been applied: find out before going on. */
async function settleCommit(
  deps: EngineDeps,
  acquired: AcquiredJob,
  event: EventObject,
  writes: StepWrites,
  retried: boolean,
  err: unknown,
  keptLock: boolean,
  next: PlannedNext | undefined,
): Promise<string | undefined> {
  const { job } = acquired;
  const expected = plannedOrNext(deps, job, event, writes, next);
  const outcome = await settle(deps.queue.zk, () => loadJob(deps.queue, job.jobId), {
    status: expected.status,
    fromVersion: job.statusVersion,
    lockSessionId: acquired.lock.sessionId,
  }).catch(() => 'moved-on' as const);
  deps.log.warn({ jobId: job.jobId, event: event.type, outcome, err }, 'commit outcome was unknown');
  if (outcome === 'applied') {
    deps.ledger.record({
      kind: 'commit',
      item: job.jobId,
      state: job.status,
      version: job.statusVersion,
      event: event.type,
      to: expected.status,
    });
    // Applied with the lock kept for a hand-over that did not happen: let it go.
    if (keptLock) await releaseEventually(deps.queue, acquired.lock, deps.log);
    return expected.status;
  }
  if (outcome === 'not-applied' && !retried) return commit(deps, acquired, event, writes, next, true);
  await discard(deps, acquired, `commit outcome unknown (${outcome})`, err);
  return undefined;
}

async function discard(deps: EngineDeps, acquired: AcquiredJob, reason: string, err: unknown): Promise<void> {
  const { job } = acquired;
  deps.ledger.record({
    kind: 'discard',
    item: job.jobId,
    state: job.status,
    version: job.statusVersion,
    reason,
  });
  deps.log.warn({ jobId: job.jobId, state: job.status, reason, err }, 'step ended without a commit');
  await releaseEventually(deps.queue, acquired.lock, deps.log);
}

async function cleanupCompleted(
  deps: EngineDeps,
  acquired: AcquiredJob,
  log: EngineDeps['log'],
): Promise<void> {
  try {
    await deps.jobSteps.completed?.({
      job: { ...acquired.job, status: 'completed' },
      signal: AbortSignal.timeout(60_000),
      log,
    });
  } catch (err) {
    log.warn({ err }, 'could not clean up after a completed job');
  }
}
