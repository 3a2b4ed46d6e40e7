import type { EventObject } from 'xstate';
import { STEP_RETRY, type JobContext } from '../../../machines/index.js';
import type { AcquiredJob } from '../../queue/jobs/acquire.js';
import {
  commitJobTransition,
  nextJobRecord,
  plannedJobRecord,
  type JobCommitOptions,
} from '../../queue/jobs/transition.js';
import { loadJob, type JobRecord } from '../../queue/jobs/load.js';
import { jobRef } from '../../queue/tree/paths.js';
import { leftForIngestReason } from '../../queue/jobs/payload.js';
import { releaseEventually } from '../../queue/locks/lock.js';
import { basename } from '../../zk/index.js';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import { contextOfTraceparent } from '../../telemetry/trace-context.js';
import { STEP_WRITE_KEYS, type StepWrites } from '../../steps/contracts.js';
import type { EngineDeps, HandOver } from '../deps.js';
import { runMachineStepPlanned, zooKeeperUnavailable, type PlannedNext } from '../step-runner.js';
import { decideFailure, type RetryDecision } from '../retry/decide.js';
import { ruleFor } from '../retry/policy.js';
import { beforeJobStep, markOnRelease, newAttempt } from '../step-attempts.js';
import type { ItemCommit, ItemDescriptor, ItemStep } from './item-runner.js';

/** Without an engine's gate (a job step run on its own, in tests): every step runs at once. */
const ALONE_NEVER = { run: <T>(_suspect: boolean, step: () => Promise<T>): Promise<T> => step() };

/**
 * A job: in the lifecycle's initial state it is taken (held when its collection is on hold,
 * otherwise on to the first working state), which is all its consumer does with it; in a working
 * state its step runs through the job machine and the event the machine derived is committed
 * (the lock released in the same multi, or kept to hand the job over to this process's consumer
 * of its next state). A step aborted by session loss or shutdown commits nothing; a commit
 * refused because the lock or status moved on is discarded.
 */
export const jobItem: ItemDescriptor<AcquiredJob, JobRecord, EventObject> = {
  noun: 'job',
  record: (acquired) => acquired.job,
  id: (job) => job.jobId,
  load: (queue, job) => loadJob(queue, job.jobId),
  with: (held, job) => ({ ...held, job }),
  take: (deps, held, signal) => {
    if (held.job.status !== deps.queue.lifecycle.initial) return undefined;
    const collection = held.job.configuration.collection;
    const onHold = collection !== undefined && deps.heldCollections().has(collection);
    const event = { type: onHold ? 'job.held' : 'job.acquired' };
    return { event, ends: true, commit: commitOf(deps, held, event, {}, signal) };
  },
  step: jobStep,
};

function jobStep(
  deps: EngineDeps,
  acquired: AcquiredJob,
  signal: AbortSignal,
): ItemStep<AcquiredJob, JobRecord, EventObject> {
  const { job } = acquired;
  const { lifecycle } = deps.queue;
  const step = lifecycle.stepOf(job.status);
  const run = step === undefined ? undefined : deps.jobSteps.steps[step];
  if (step === undefined || run === undefined)
    throw new Error(`no step runs in state ${job.status}${step ? ` (step ${step} was not given)` : ''}`);
  const log = deps.log.child({ jobId: job.jobId, batchId: job.batchId, state: job.status });
  let writes: StepWrites = {};
  let notes: Record<string, unknown> = {};
  const note = (detail: Readonly<Record<string, unknown>>): void => {
    notes = { ...notes, ...detail };
  };
  let retryInMs: number | undefined;
  // The step's failure under its retry policy (recorded with the commit), when it failed.
  let failure: RetryDecision | undefined;
  const retrying = async <T>(attempt: () => Promise<T>, stepSignal: AbortSignal): Promise<T> => {
    try {
      return await attempt();
    } catch (err) {
      // Not the job's failure (aborted, ZooKeeper away: handed back), or not this state's to retry.
      if (stepSignal.aborted || zooKeeperUnavailable(err) || !lifecycle.retryStates.includes(job.status))
        throw err;
      const rule = ruleFor(deps.retryPolicy?.() ?? {}, step, job.configuration.profile_name);
      failure = decideFailure({
        job,
        error: err,
        rule,
        now: deps.queue.now(),
        engine: deps.engineId,
        random: Math.random(),
      });
      retryInMs = failure.retryInMs;
      throw failure.error;
    }
  };
  let next: PlannedNext | undefined;
  // The job as its step attempt was recorded (its attempts node is written from here on).
  let held = acquired;
  return {
    // The step continues the batch's trace, stored with the job when its batch was expanded.
    span: {
      name: SpanName.step(job.status),
      attributes: {
        [Attr.jobId]: job.jobId,
        [Attr.batchId]: job.batchId,
        [Attr.state]: job.status,
        [Attr.priority]: job.priority,
        [Attr.retryCount]: job.retryCount,
        [Attr.profile]: job.configuration.profile_name,
      },
      parent: contextOfTraceparent(job.configuration.traceparent),
    },
    run: async () => {
      const before = beforeJobStep(deps, acquired);
      if (!before.run) return before.event;
      const { machine, input } = lifecycle.restore(job);
      const isolation = deps.isolation ?? ALONE_NEVER;
      return isolation.run(before.suspect, async () => {
        held = await before.record();
        const started = performance.now();
        const planned = await runMachineStepPlanned<EventObject>({
          machine,
          input,
          actorNames: lifecycle.steps,
          actor: step,
          signal,
          inspect: deps.inspect,
          run: async (stepSignal) => {
            const output = await retrying(() => run({ job, signal: stepSignal, log, note }), stepSignal);
            if (output && typeof output === 'object' && STEP_WRITE_KEYS.some((key) => key in output))
              writes = output;
            retryInMs = retryInOf(output);
            return output;
          },
        });
        next = planned.next;
        deps.metrics?.stepDuration(job.status, (performance.now() - started) / 1000);
        return planned.event;
      });
    },
    commit: (event) =>
      commitOf(deps, held, event, { ...writes, retry: failure?.record }, signal, next, () =>
        historyDetail(held.job, notes, writes, failure),
      ),
    after: async (event, committed) => {
      if (failure && committed)
        deps.metrics?.stepFailed(
          job.status,
          failure.record.class,
          event.type === STEP_RETRY ? 'retry' : 'fail',
        );
      else if ('message' in event && event.type.endsWith('.failed'))
        deps.metrics?.stepFailed(job.status, 'permanent', 'fail');
      const to = committed?.status;
      if (to !== undefined && lifecycle.isFinal(to)) await cleanupCompleted(deps, held, log, to);
      if (to === job.status && retryInMs !== undefined) deps.lookAgain?.(to, job.jobId, retryInMs);
    },
  };
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
 * The commit of `event`. When the job's next state has a slot in this process, the commit keeps
 * the lock and hands the job over, with the step's `signal` (its next step runs under it); a
 * commit that fails gives the slot back.
 */
function commitOf(
  deps: EngineDeps,
  acquired: AcquiredJob,
  event: EventObject,
  writes: StepWrites & Pick<JobCommitOptions, 'retry'>,
  signal: AbortSignal,
  next?: PlannedNext,
  detail?: () => Readonly<Record<string, unknown>> | undefined,
): ItemCommit<AcquiredJob, JobRecord> {
  const { job, lock } = acquired;
  return {
    held: acquired,
    attempt: () => {
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
            handOver.accept(
              { job: to, lock, ref: jobRef(to.status, to.priority, to.jobId), attempt },
              signal,
            );
          }
          // Applied with the lock kept for a hand-over that did not happen (cancelled): let it go.
          else if (handOver) await releaseEventually(deps.queue, lock);
        },
        failed: () => handOver?.cancel(),
        ...(detail ? { detail } : {}),
      };
    },
  };
}

/**
 * What the job's history keeps of a step besides its transition: the step's notes, the
 * identifiers it wrote, its failure's class and count under the retry policy, and the earlier
 * attempts at this step that ended without a commit (their process or session gone, handed back).
 */
function historyDetail(
  job: AcquiredJob['job'],
  notes: Readonly<Record<string, unknown>>,
  writes: StepWrites,
  failure: RetryDecision | undefined,
): Record<string, unknown> | undefined {
  const attempts = job.attempts?.state === job.status ? job.attempts.attempts.slice(0, -1) : [];
  const detail: Record<string, unknown> = {
    ...notes,
    ...(writes.identifiers ? { identifiers: writes.identifiers } : {}),
    ...(failure
      ? {
          failure: {
            class: failure.record.class,
            code: failure.record.code,
            failures: failure.record.failures,
            limit: failure.record.limit,
            ...(failure.record.next_attempt ? { nextAttempt: failure.record.next_attempt } : {}),
          },
        }
      : {}),
    ...(attempts.length > 0 ? { earlierAttempts: attempts } : {}),
  };
  return Object.keys(detail).length > 0 ? detail : undefined;
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
  status: string,
): Promise<void> {
  try {
    await deps.jobSteps.completed?.({
      job: { ...acquired.job, status },
      signal: AbortSignal.timeout(60_000),
      log,
    });
  } catch (err) {
    log.warn({ err }, 'could not clean up after a completed job');
  }
}
