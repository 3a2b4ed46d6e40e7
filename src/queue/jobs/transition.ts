import type { EventObject } from 'xstate';
import type { JobContext, JobEvent, JobLifecycle } from '../../../machines/index.js';

/** An event of the queue's job lifecycle: Merritt's (typed) or one a custom lifecycle adds. */
export type AnyJobEvent = JobEvent | EventObject;
import { ZkTransactionError, type Op } from '../../zk/index.js';
import { commitOps, type QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import type { AcquiredJob } from './acquire.js';
import type { JobRecord, OptionalJobNode } from './load.js';
import { attemptsOp, attemptsPath, type StepAttempt } from './attempts.js';
import { retryOp, retryPath, type JobRetry } from './retry-record.js';
import { findRefIn } from './refs.js';
import { assertSameSession } from '../locks/lock.js';
import {
  batchPath,
  batchRef,
  clampPriority,
  jobChild,
  jobPath,
  jobRef,
  jobStateFolder,
} from '../tree/paths.js';
import type { JobIdentifiers, JobInventory, JobMetadata, JobStore } from '../tree/records.js';
import { formatTimestamp } from '../tree/timestamps.js';
import { encodeJobStatus, encodeJson, encodeText } from '../tree/wire.js';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import { withSpan } from '../../telemetry/span.js';
import { parentContext } from '../../telemetry/trace-context.js';

export interface JobCommitOptions {
  /** Delete the lock in the same multi (default true): the job is free for the next consumer. */
  release?: boolean;
  /** Written with the transition (processing mints the ark). */
  identifiers?: JobIdentifiers;
  /** Written with the transition (processing reads the depositor's `mrt-erc.txt`). */
  metadata?: JobMetadata;
  /** Hand-off nodes: written only while absent or empty (a requeue keeps the original, as in mrt-zk). */
  store?: JobStore;
  inventory?: JobInventory;
  /** The job after the event, when the caller has already asked the machine (`nextJobRecord`). */
  planned?: JobRecord;
  /**
   * The attempt at the next state's step that this commit records, when it keeps the lock for
   * this process to run that step (a hand-over, `release: false`): the step then starts with its
   * attempt already written, at no extra request (see job-attempts.ts).
   */
  attempt?: StepAttempt;
  /**
   * The record of the step failure this commit writes (`step.retry`, or the move to failed), with
   * the version the job's status has after it. Any other commit deletes the job's record.
   */
  retry?: Omit<JobRetry, 'status_version'>;
}

/** The result of a committed transition: the job as it now is, and whether it still holds the lock. */
export interface CommittedJob {
  job: JobRecord;
  released: boolean;
}

/** The ops of a job transition, for composing with other ops into one multi. */
export function jobTransitionOps(
  acquired: AcquiredJob,
  next: JobRecord,
  options: JobCommitOptions,
  now: Date,
  lifecycle: JobLifecycle,
): Op[] {
  const { job, lock, ref } = acquired;
  const ops: Op[] = [
    { op: 'check', path: lock.path },
    {
      op: 'set',
      path: jobChild(job.jobId, 'status'),
      data: encodeJobStatus(next, now, lifecycle),
      version: job.statusVersion,
    },
  ];
  const newRef = jobRef(next.status, next.priority, job.jobId);
  if (newRef !== ref) ops.push({ op: 'delete', path: ref }, { op: 'create', path: newRef });
  // An optional node another tool left out is created (a set would fail the whole multi).
  const absent = new Set(job.absentNodes);
  const write = (key: OptionalJobNode, value: number): Op => ({
    op: absent.has(key) ? 'create' : 'set',
    path: jobChild(job.jobId, key),
    data: encodeText(value),
  });
  if (absent.has('priority') || next.priority !== job.priority || job.priorityWritten !== undefined)
    ops.push(write('priority', clampPriority(next.priority)));
  if (absent.has('space_needed') || next.spaceNeeded !== job.spaceNeeded)
    ops.push(write('space_needed', next.spaceNeeded));
  if (options.identifiers) {
    const op = job.identifiers ? 'set' : 'create';
    ops.push({ op, path: jobChild(job.jobId, 'identifiers'), data: encodeJson(options.identifiers) });
  }
  if (options.metadata) {
    const op = job.metadata ? 'set' : 'create';
    ops.push({ op, path: jobChild(job.jobId, 'metadata'), data: encodeJson(options.metadata) });
  }
  ops.push(
    ...handOffOps(acquired, 'store', options.store),
    ...handOffOps(acquired, 'inventory', options.inventory),
  );
  const fromFolder = lifecycle.batchFolderOf(job.status);
  const toFolder = lifecycle.batchFolderOf(next.status);
  if (fromFolder !== toFolder) {
    ops.push(
      { op: 'delete', path: batchRef(job.batchId, fromFolder, job.jobId) },
      { op: 'create', path: batchRef(job.batchId, toFolder, job.jobId) },
    );
  }
  const attempts = attemptsAfter(job, next, options);
  if (attempts.attempts) ops.push(attemptsOp(job.jobId, job.attemptsNode === true, attempts.attempts));
  else if (job.attemptsNode) ops.push({ op: 'delete', path: attemptsPath(job.jobId) });
  if (options.retry)
    ops.push(
      retryOp(job.jobId, job.retryNode === true, { ...options.retry, status_version: next.statusVersion }),
    );
  else if (job.retryNode) ops.push({ op: 'delete', path: retryPath(job.jobId) });
  if (options.release ?? true) ops.push({ op: 'delete', path: lock.path });
  return ops;
}

/**
 * The job's attempts after a commit: the step of the state it leaves has ended (its attempts
 * are deleted); a hand-over records the first attempt at the next state's step.
 */
function attemptsAfter(
  job: JobRecord,
  next: JobRecord,
  options: JobCommitOptions,
): Pick<JobRecord, 'attempts' | 'attemptsNode'> {
  if (options.attempt === undefined || (options.release ?? true) || next.status === job.status)
    return { attempts: undefined, attemptsNode: false };
  const attempts = { state: next.status, statusVersion: next.statusVersion, attempts: [options.attempt] };
  return { attempts, attemptsNode: true };
}

/**
 * A hand-off node is written while it is absent or empty, never over data (mrt-zk's `setStore`
 * and `setInventory`): a requeued job keeps the node it was first handed off with. A node that
 * exists empty is set with its expected version, so a concurrent writer is not overwritten.
 */
function handOffOps(acquired: AcquiredJob, key: 'store' | 'inventory', data: object | undefined): Op[] {
  if (!data || acquired.job[key]) return [];
  const path = jobChild(acquired.job.jobId, key);
  const version = acquired.job.emptyNodeVersions?.[key];
  return version === undefined
    ? [{ op: 'create', path, data: encodeJson(data) }]
    : [{ op: 'set', path, data: encodeJson(data), version }];
}

/** The job after `event`, as the machine decides; INVALID_TRANSITION naming state and event when it refuses. */
export function nextJobRecord(
  lifecycle: JobLifecycle,
  job: JobRecord,
  event: AnyJobEvent,
  options: JobCommitOptions = {},
): JobRecord {
  const result = lifecycle.next(job, event);
  if (!result.ok)
    throw new QueueError('INVALID_TRANSITION', `job ${job.jobId}: ${result.message}`, jobPath(job.jobId));
  return plannedJobRecord(job, result.to, result.context, options);
}

/**
 * The job after a transition the machine has already evaluated (its target and context there),
 * with what the step wrote: for a step whose pure run planned it (`runMachineStepPlanned`).
 */
export function plannedJobRecord(
  job: JobRecord,
  to: string,
  context: JobContext,
  options: JobCommitOptions = {},
): JobRecord {
  return {
    ...job,
    ...context,
    priority: clampPriority(context.priority),
    priorityWritten: undefined,
    absentNodes: undefined,
    status: to,
    statusVersion: job.statusVersion + 1,
    identifiers: options.identifiers ?? job.identifiers,
    metadata: options.metadata ?? job.metadata,
    store: job.store ?? options.store,
    inventory: job.inventory ?? options.inventory,
  };
}

/**
 * Commits `event` for a job this session has locked, as ONE multi (DESIGN.md invariant 1):
 * check the lock, set the status with its expected version, move the `/jobs/states` ref (its
 * priority too), write changed priority, space_needed (either created when absent), identifiers
 * or inventory, move the batch ref when its folder changes, and release the lock. The machine
 * decides the target; an event it refuses is INVALID_TRANSITION. A lost lock gives LOCK_LOST and
 * a moved status CONFLICT, both with nothing written.
 */
export async function commitJobTransition(
  ctx: QueueContext,
  acquired: AcquiredJob,
  event: AnyJobEvent,
  options: JobCommitOptions = {},
): Promise<CommittedJob> {
  const { job } = acquired;
  const next = options.planned ?? nextJobRecord(ctx.lifecycle, job, event, options);
  const attributes = {
    [Attr.jobId]: job.jobId,
    [Attr.batchId]: job.batchId,
    [Attr.stateFrom]: job.status,
    [Attr.stateTo]: next.status,
    [Attr.event]: event.type,
    [Attr.priority]: next.priority,
    [Attr.retryCount]: next.retryCount,
  };
  return withSpan(
    SpanName.transition(job.status),
    attributes,
    () => commit(ctx, acquired, event, next, options),
    {
      parent: parentContext(job.configuration.traceparent),
    },
  );
}

async function commit(
  ctx: QueueContext,
  acquired: AcquiredJob,
  event: AnyJobEvent,
  next: JobRecord,
  options: JobCommitOptions,
): Promise<CommittedJob> {
  const { job } = acquired;
  assertSameSession(ctx, acquired.lock);
  const now = ctx.now();
  let current = acquired;
  for (let attempt = 0; ; attempt++) {
    try {
      const ops = jobTransitionOps(current, next, options, now, ctx.lifecycle);
      await commitOps(ctx, ops);
      break;
    } catch (err) {
      const repaired = attempt === 0 ? await repair(ctx, current, err) : undefined;
      if (!repaired) throw explain(current, event, err);
      current = repaired;
    }
  }
  // Moves into a working state are logged at debug: six a job, thousands a second at full speed
  // (at info they cost about 12 % of the engine's CPU in chaos scenario 7). A job's arrival in
  // pending, held, completed, failed or deleted is logged at info. Every move is also counted in
  // the metrics and spanned in the trace.
  // The line's object is not built when the level is off (the usual case for debug).
  const level = ctx.lifecycle.isWorking(next.status) ? 'debug' : 'info';
  if (ctx.log.isLevelEnabled(level))
    ctx.log[level](
      { jobId: job.jobId, batchId: job.batchId, from: job.status, to: next.status, event: event.type },
      'transition',
    );
  const retry = options.retry
    ? { retry: { ...options.retry, status_version: next.statusVersion }, retryNode: true }
    : { retry: undefined, retryNode: false };
  return {
    job: { ...next, ...attemptsAfter(job, next, options), ...retry, lastModified: formatTimestamp(now) },
    released: options.release ?? true,
  };
}

/**
 * Recovers from refs that are not where this engine would put them (written by another tool):
 * a state ref under another priority, or a missing batch folder. Returns a corrected attempt.
 */
async function repair(
  ctx: QueueContext,
  acquired: AcquiredJob,
  err: unknown,
): Promise<AcquiredJob | undefined> {
  if (!(err instanceof ZkTransactionError) || err.kind !== 'NO_NODE') return undefined;
  const { job } = acquired;
  if (err.failedOp.op === 'delete' && err.path === acquired.ref) {
    const actual = await findRefIn(ctx, jobStateFolder(job.status), job.jobId);
    return actual ? { ...acquired, ref: actual } : undefined;
  }
  const batchStates = `${batchPath(job.batchId)}/states/`;
  if (err.failedOp.op === 'create' && err.path?.startsWith(batchStates)) {
    await ctx.zk.mkdirp(err.path.slice(0, err.path.lastIndexOf('/')));
    return acquired;
  }
  return undefined;
}

function explain(acquired: AcquiredJob, event: AnyJobEvent, err: unknown): unknown {
  if (!(err instanceof ZkTransactionError)) return err;
  const { job, lock } = acquired;
  const what = `job ${job.jobId} ${job.status} --${event.type}-->`;
  if (err.failedOp.path === lock.path) {
    return new QueueError(
      'LOCK_LOST',
      `${what}: lock ${lock.path} is gone; nothing committed`,
      jobPath(job.jobId),
      { cause: err },
    );
  }
  if (err.kind === 'BAD_VERSION') {
    return new QueueError(
      'CONFLICT',
      `${what}: status changed since it was read; nothing committed`,
      jobPath(job.jobId),
      {
        cause: err,
      },
    );
  }
  return new QueueError('ITEM_INVALID', `${what}: ${err.message}; nothing committed`, jobPath(job.jobId), {
    cause: err,
  });
}
