import type { EventObject } from 'xstate';
import type { JobContext } from '../../machines/index.js';
import type { AcquiredJob } from '../queue/jobs/acquire.js';
import { commitJobTransition, nextJobRecord, plannedJobRecord } from '../queue/jobs/transition.js';
import { loadJob, type JobRecord } from '../queue/jobs/load.js';
import { jobRef } from '../queue/tree/paths.js';
import { leftForIngestReason } from '../queue/jobs/payload.js';
import { basename } from '../zk/index.js';
import type { Span } from '@opentelemetry/api';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { markFailed, withSpan } from '../telemetry/span.js';
import { contextOfTraceparent } from '../telemetry/trace-context.js';
import type { EngineDeps, HandOver } from './deps.js';
import { releaseEventually } from '../queue/locks/lock.js';
import { commitItem, stepItem, type ItemKind } from './item-runner.js';
import { runMachineStepPlanned, type PlannedNext } from './step-runner.js';
import { STEP_WRITE_KEYS, type StepWrites } from '../steps/contracts.js';
import { beforeJobStep, markOnRelease, newAttempt } from './step-attempts.js';

/** Without an engine's gate (a job step run on its own, in tests): every step runs at once. */
const ALONE_NEVER = { run: <T>(_suspect: boolean, step: () => Promise<T>): Promise<T> => step() };

const JOB: ItemKind<AcquiredJob, JobRecord> = {
  noun: 'job',
  record: (acquired) => acquired.job,
  id: (job) => job.jobId,
  load: (queue, job) => loadJob(queue, job.jobId),
};

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
  let writes: StepWrites = {};
  let retryInMs: number | undefined;
  let started = 0;
  // The job as its step attempt was recorded (its attempts node is written from here on).
  let held = acquired;
  const stepped = await stepItem(deps, JOB, acquired, async () => {
    const before = beforeJobStep(deps, acquired);
    if (!before.run) return { event: before.event, next: undefined };
    const { machine, input } = lifecycle.restore(job);
    const isolation = deps.isolation ?? ALONE_NEVER;
    return isolation.run(before.suspect, async () => {
      held = await before.record();
      started = performance.now();
      return runMachineStepPlanned<EventObject>({
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
          retryInMs = retryInOf(output);
          return output;
        },
      });
    });
  });
  if (!stepped.ran) {
    markFailed(span, stepped.reason === 'stalled' ? 'lock lost while stalled' : 'aborted');
    return undefined;
  }
  const { event, next } = stepped.value;
  span.setAttribute(Attr.event, event.type);
  if (started > 0) deps.metrics?.stepDuration(job.status, (performance.now() - started) / 1000);
  if ('message' in event && event.type.endsWith('.failed')) {
    markFailed(span, typeof event.message === 'string' ? event.message : event.type);
    deps.metrics?.stepFailed(job.status);
  }
  const to = await commit(deps, held, event, writes, next);
  if (to) span.setAttribute(Attr.stateTo, to);
  if (to === 'completed') await cleanupCompleted(deps, held, log);
  if (to === job.status && retryInMs !== undefined) deps.lookAgain?.(to, job.jobId, retryInMs);
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
  // Left to the ingest service that wrote it there: released, so the consumer there passes it by.
  if (leftForIngestReason(deps.queue.lifecycle, next, job.configuration) !== undefined) return undefined;
  return deps.handOver(next, basename(jobRef(next, priority, job.jobId)));
}

/** The job after `event`: from the step's plan when its pure run made one (no second evaluation of the machine). */
function plannedOrNext(
  deps: EngineDeps,
  job: AcquiredJob['job'],
  event: EventObject,
  writes: StepWrites,
  next: PlannedNext | undefined,
): JobRecord {
  return next
    ? plannedJobRecord(job, next.value, next.context as JobContext, writes)
    : nextJobRecord(deps.queue.lifecycle, job, event, writes);
}

/**
 * Commits through the item runner. When the job's next state has a slot in this process, the
 * commit keeps the lock and hands the job over; a commit that fails gives the slot back.
 */
async function commit(
  deps: EngineDeps,
  acquired: AcquiredJob,
  event: EventObject,
  writes: StepWrites,
  next?: PlannedNext,
): Promise<string | undefined> {
  const { job, lock } = acquired;
  const committed = await commitItem(deps, JOB, acquired, event, () => {
    const planned = plannedOrNext(deps, job, event, writes, next);
    const handOver = handOverFor(deps, job, planned.status, planned.priority);
    // A job handed over has its next step's attempt recorded by this commit (see job-attempts.ts).
    const attempt = handOver && newAttempt(deps, lock);
    return {
      expected: () => planned,
      write: async () => {
        const options = { ...writes, planned, release: handOver === undefined, attempt };
        return (await commitJobTransition(deps.queue, acquired, event, options)).job;
      },
      committed: async (to, settled) => {
        if (!settled && handOver) {
          if (to.attempts) markOnRelease(deps, lock, to.jobId, to.attempts);
          handOver.accept({ job: to, lock, ref: jobRef(to.status, to.priority, to.jobId), attempt });
        }
        // Applied with the lock kept for a hand-over that did not happen (cancelled): let it go.
        else if (handOver) await releaseEventually(deps.queue, lock);
      },
      failed: () => handOver?.cancel(),
    };
  });
  return committed?.status;
}

/** When a step that leaves its job where it is says to look at it again (`retryInMs`), if it does. */
function retryInOf(output: unknown): number | undefined {
  if (!output || typeof output !== 'object' || !('retryInMs' in output)) return undefined;
  const ms = output.retryInMs;
  return typeof ms === 'number' && Number.isFinite(ms) ? Math.max(0, ms) : undefined;
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
