import { batchRoles, type BatchEvent } from '../../machines/index.js';
import { takeLockForAdmin, type AdminOptions } from './lock.js';
import { loadBatch, type BatchRecord } from '../queue/batches/load.js';
import { commitBatchTransition } from '../queue/batches/transition.js';
import type { QueueContext } from '../queue/tree/context.js';
import { releaseEventually } from '../queue/locks/lock.js';
import { batchPath } from '../queue/tree/paths.js';
import { removeBatchNow } from './cleanup.js';

async function withBatch(
  ctx: QueueContext,
  bid: string,
  event: BatchEvent,
  options: AdminOptions,
): Promise<BatchRecord> {
  const lock = await takeLockForAdmin(ctx, batchPath(bid), options);
  try {
    const batch = await loadBatch(ctx, bid);
    return await commitBatchTransition(ctx, { batch, lock }, event);
  } catch (err) {
    await releaseEventually(ctx, lock);
    throw err;
  }
}

/** Operator hold of a pending batch (pending → held). */
export const holdBatch = (ctx: QueueContext, bid: string, options: AdminOptions = {}): Promise<BatchRecord> =>
  withBatch(ctx, bid, { type: 'admin.hold' }, options);

/** Operator release of a held batch (held → pending; the collection hold is checked again). */
export const releaseBatch = (
  ctx: QueueContext,
  bid: string,
  options: AdminOptions = {},
): Promise<BatchRecord> => withBatch(ctx, bid, { type: 'admin.release' }, options);

/** Operator request for an updated report of a failed batch (failed → update-reporting). */
export const updateReport = (
  ctx: QueueContext,
  bid: string,
  options: AdminOptions = {},
): Promise<BatchRecord> => withBatch(ctx, bid, { type: 'admin.update-report' }, options);

/** A deleted batch, and whether its nodes are gone already or wait for cleanup (and why). */
export interface DeletedBatch {
  batch: BatchRecord;
  removedJobs: string[];
  /** Why some nodes remain (a locked job…); cleanup removes them later. */
  pending?: string;
}

/**
 * Deletes a failed or held batch with its jobs (seed 003). The status goes to Deleted first (one
 * multi, validated by the machine), then its jobs, uuid entry and tree are removed as cleanup
 * removes them (one multi per job, nothing removed while locked); a crash or a locked job midway
 * leaves a Deleted batch that `mrtq cleanup` finishes.
 */
export async function deleteBatch(
  ctx: QueueContext,
  bid: string,
  options: AdminOptions = {},
): Promise<DeletedBatch> {
  const current = await loadBatch(ctx, bid);
  const batch =
    current.status === batchRoles.deleted
      ? current
      : await withBatch(ctx, bid, { type: 'admin.delete' }, options);
  const outcome = await removeBatchNow(ctx, bid);
  ctx.log.info({ batchId: bid, ...outcome }, 'batch deleted');
  return 'removed' in outcome
    ? { batch, removedJobs: outcome.removed }
    : { batch, removedJobs: [], pending: outcome.skipped };
}
