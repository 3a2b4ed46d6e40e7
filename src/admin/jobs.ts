import { canBatch, type JobEvent } from '../../machines/index.js';
import { ZkTransactionError } from '../zk/index.js';
import { lockJobsBatch } from './job-batch.js';
import { findRefIn } from '../queue/jobs/refs.js';
import { moveForeignJob, readForeignStatus } from './repair.js';
import { takeLockForAdmin, type AdminOptions } from './lock.js';
import type { AcquiredBatch } from '../queue/batches/acquire.js';
import { batchTransitionOps, nextBatchRecord } from '../queue/batches/transition.js';
import type { QueueContext } from '../queue/tree/context.js';
import { isQueueError, QueueError } from '../queue/tree/errors.js';
import type { AcquiredJob } from '../queue/jobs/acquire.js';
import { loadJob, type JobRecord } from '../queue/jobs/load.js';
import { loadJobRestoringBid } from '../queue/jobs/bid-restore.js';
import { commitJobTransition, jobTransitionOps, nextJobRecord } from '../queue/jobs/transition.js';
import { releaseEventually, type HeldLock } from '../queue/locks/lock.js';
import { deleteIfPresent } from '../doctor/orphans.js';
import { inventoryLockPath, jobPath, jobRef, jobStateFolder, storageLockPath } from '../queue/tree/paths.js';

async function lockedJob(ctx: QueueContext, jid: string, options: AdminOptions): Promise<AcquiredJob> {
  const lock = await takeLockForAdmin(ctx, jobPath(jid), options);
  try {
    const job = await loadJobRestoringBid(ctx, jid, lock);
    return { job, lock, ref: await findJobRef(ctx, job) };
  } catch (err) {
    await releaseEventually(ctx, lock);
    throw err;
  }
}

/** The job's actual state ref (another tool may have written it under another priority). */
async function findJobRef(ctx: QueueContext, job: JobRecord): Promise<string> {
  // The ref this engine would have written is there nearly always: one exists check instead of
  // listing a folder that may hold a hundred thousand refs (a bulk action asks once per job).
  const expected = jobRef(job.status, job.priority, job.jobId);
  if (await ctx.zk.exists(expected)) return expected;
  const found = await findRefIn(ctx, jobStateFolder(job.status), job.jobId);
  return found ?? expected;
}

async function withJob(
  ctx: QueueContext,
  jid: string,
  event: JobEvent,
  options: AdminOptions,
): Promise<JobRecord> {
  const acquired = await lockedJob(ctx, jid, options);
  try {
    return (await commitJobTransition(ctx, acquired, event)).job;
  } catch (err) {
    await releaseEventually(ctx, acquired.lock);
    throw err;
  }
}

/** Operator hold of a pending job (pending → held). */
export const holdJob = (ctx: QueueContext, jid: string, options: AdminOptions = {}): Promise<JobRecord> =>
  withJob(ctx, jid, { type: 'admin.hold' }, options);

/** Operator release of a held job (held → pending). */
export const releaseJob = (ctx: QueueContext, jid: string, options: AdminOptions = {}): Promise<JobRecord> =>
  withJob(ctx, jid, { type: 'admin.release' }, options);

/**
 * Operator delete of a held or failed job (→ deleted; its batch ref moves to batch-deleted),
 * under the batch lock (see lockJobsBatch): refused while the batch is being reported.
 */
export async function deleteJob(
  ctx: QueueContext,
  jid: string,
  options: AdminOptions = {},
): Promise<JobRecord> {
  const acquired = await lockedJob(ctx, jid, options).catch(async (err: unknown) => {
    // A status the lifecycle does not know: not through the machine, but deleted all the same.
    if (!isQueueError(err, 'ITEM_INVALID') || !(await readForeignStatus(ctx, jid))) throw err;
    return undefined;
  });
  if (!acquired) {
    const deleted = ctx.lifecycle.enteredBy('admin.delete');
    if (deleted === undefined)
      throw new QueueError('BAD_REQUEST', 'this job lifecycle has no delete', jobPath(jid));
    await moveForeignJob(ctx, jid, deleted, options);
    return loadJob(ctx, jid);
  }
  let batchLock: HeldLock | undefined;
  try {
    nextJobRecord(ctx.lifecycle, acquired.job, { type: 'admin.delete' });
    batchLock = (await lockJobsBatch(ctx, acquired.job.batchId, jid, 'delete', options)).lock;
    return (await commitJobTransition(ctx, acquired, { type: 'admin.delete' })).job;
  } catch (err) {
    await releaseEventually(ctx, acquired.lock);
    throw err;
  } finally {
    if (batchLock) await releaseEventually(ctx, batchLock);
  }
}

/** How a job is requeued: `to` moves a job whose status the lifecycle does not know (see moveForeignJob). */
export interface RequeueOptions extends AdminOptions {
  to?: string;
}

/**
 * Requeues a failed job: it resumes after `last_successful_status` with `retry_count + 1`.
 * With `to`, a job whose status the lifecycle does not know goes to that state instead.
 * When its batch has already reported (failed), the batch goes back to processing in the SAME
 * multi, so it reports again once this job is done. The batch lock is held until that multi
 * (which releases it), so a reporter cannot report the batch while the job re-enters it; a batch
 * that is being reported refuses the requeue (LOCK_HELD): try again when its report is out.
 */
export async function requeueJob(
  ctx: QueueContext,
  jid: string,
  options: RequeueOptions = {},
): Promise<JobRecord> {
  if (options.to !== undefined) {
    await moveForeignJob(ctx, jid, options.to, options);
    return loadJob(ctx, jid);
  }
  const acquired = await lockedJob(ctx, jid, options).catch(async (err: unknown) => {
    const foreign = isQueueError(err, 'ITEM_INVALID') ? await readForeignStatus(ctx, jid) : undefined;
    if (!foreign) throw err;
    const states = ctx.lifecycle.servableStates.join(', ');
    throw new QueueError(
      'INVALID_TRANSITION',
      `job ${jid} has status ${JSON.stringify(foreign.raw)}, which this lifecycle does not know: requeue it to a state it knows (--to, one of ${states}) or delete it`,
      jobPath(jid),
      { cause: err },
    );
  });
  let batchLock: AcquiredBatch | undefined;
  try {
    const next = nextJobRecord(ctx.lifecycle, acquired.job, { type: 'admin.requeue' });
    batchLock = await lockJobsBatch(ctx, acquired.job.batchId, jid, 'requeue', options);
    const { batch } = batchLock;
    const now = ctx.now();
    const ops = jobTransitionOps(acquired, next, {}, now, ctx.lifecycle);
    const reopens = canBatch(batch, { type: 'batch.job-requeued' });
    if (reopens) {
      const nextBatch = nextBatchRecord(batch, { type: 'batch.job-requeued' });
      ops.push(...batchTransitionOps(batchLock, nextBatch, {}, now));
    } else {
      ops.push({ op: 'delete', path: batchLock.lock.path });
    }
    await ctx.zk.multi(ops);
    ctx.log.info(
      { jobId: jid, to: next.status, retryCount: next.retryCount, batchReopened: reopens },
      'job requeued',
    );
    return next;
  } catch (err) {
    await releaseEventually(ctx, acquired.lock);
    if (batchLock) await releaseEventually(ctx, batchLock.lock);
    if (err instanceof ZkTransactionError && err.kind === 'BAD_VERSION') {
      throw new QueueError(
        'CONFLICT',
        `job ${jid} or its batch changed while requeueing; nothing committed`,
        jobPath(jid),
        { cause: err },
      );
    }
    throw err;
  }
}

/** Why an operator fails a job: written as its message, and logged when its lock is broken. */
export interface FailOptions {
  reason?: string;
}

/** What a fail did besides the transition: the object locks it removed. */
export interface FailedJob {
  job: JobRecord;
  releasedLocks: string[];
}

/**
 * mrt-admin's Fail: a job that is not held, failed or final becomes failed with the reason as its
 * message, whoever holds its lock (the lock is broken, as mrt-admin removes `/jobs/JID/lock`; a
 * worker still running its step then cannot commit). Its last success is kept, so a requeue
 * resumes at the step it was failed in. Then the object's `/locks/storage/<ark>` and
 * `/locks/inventory/<ark>` are removed for `identifiers.primary_id`. Its batch goes on as for
 * any failed job (the job's ref moves to batch-failed in the same multi).
 */
export async function failJob(ctx: QueueContext, jid: string, options: FailOptions = {}): Promise<FailedJob> {
  const message = options.reason ? `failed by an operator: ${options.reason}` : 'failed by an operator';
  const event: JobEvent = { type: 'admin.fail', message };
  // Refused before any lock is broken when the lifecycle does not allow it.
  nextJobRecord(ctx.lifecycle, await loadJob(ctx, jid, { bidOptional: true }), event);
  const acquired = await lockedJob(ctx, jid, { force: true, reason: options.reason ?? 'operator fail' });
  let job: JobRecord;
  try {
    job = (await commitJobTransition(ctx, acquired, event)).job;
  } catch (err) {
    await releaseEventually(ctx, acquired.lock);
    throw err;
  }
  const releasedLocks: string[] = [];
  const ark = job.identifiers?.primary_id;
  if (ark) {
    // One spelling: this engine names object locks as Merritt does (paths.ts). Its earlier
    // spelling (`ark__13030_x`) was only ever an ephemeral node of an engine of that version,
    // released when its step ends or its session does and in no one else's way meanwhile, so
    // no upgrade leaves one behind for this to remove.
    for (const path of [storageLockPath(ark), inventoryLockPath(ark)])
      if (await deleteIfPresent(ctx, path)) releasedLocks.push(path);
  }
  ctx.log.info({ jobId: jid, from: acquired.job.status, releasedLocks }, 'job failed by operator');
  return { job, releasedLocks };
}
