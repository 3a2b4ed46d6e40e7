import type { BatchEvent } from '../../machines/index.js';
import { isZkError } from '../zk/index.js';
import { takeLockForAdmin, type AdminOptions } from './admin-lock.js';
import { listBatchJobs } from './batch-jobs.js';
import { loadBatch, type BatchRecord } from './batch-load.js';
import { commitBatchTransition } from './batch-transition.js';
import type { QueueContext } from './context.js';
import { releaseLock } from './locks.js';
import { batchPath, batchUuidPath, jobPath, jobStateFolder, parseRefName } from './paths.js';
import { jobStates } from '../../machines/index.js';

async function withBatch(
  ctx: QueueContext,
  bid: string,
  event: BatchEvent,
  options: AdminOptions,
  release = true,
): Promise<BatchRecord> {
  const lock = await takeLockForAdmin(ctx, batchPath(bid), options);
  try {
    const batch = await loadBatch(ctx, bid);
    return await commitBatchTransition(ctx, { batch, lock }, event, { release });
  } catch (err) {
    await releaseLock(ctx, lock);
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

/**
 * Deletes a failed or held batch with its jobs (seed 003). The status goes to Deleted first (one
 * multi, validated by the machine, lock kept), then every job's refs and nodes are removed,
 * then the uuid entry and the batch. Each removal tolerates NO_NODE, so a crash midway leaves a
 * Deleted batch that cleanup (or running this again) finishes.
 */
export async function deleteBatch(
  ctx: QueueContext,
  bid: string,
  options: AdminOptions = {},
): Promise<BatchRecord> {
  const current = await loadBatch(ctx, bid);
  const deleted =
    current.status === 'deleted'
      ? current
      : await withBatch(ctx, bid, { type: 'admin.delete' }, options, false);
  await removeBatchTree(ctx, deleted);
  ctx.log.info({ batchId: bid }, 'batch deleted');
  return deleted;
}

async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (err) {
    if (!isZkError(err, 'NO_NODE')) throw err;
  }
}

/** Removes a batch's jobs (refs before nodes, so no consumer sees a ref to a half-deleted job), its uuid entry and its tree. */
export async function removeBatchTree(ctx: QueueContext, batch: BatchRecord): Promise<void> {
  const jobs = await listBatchJobs(ctx, batch.batchId);
  const jids = new Set(jobs.map((j) => j.jid));
  const folders = await Promise.all(
    jobStates.map(async (s) => ({
      folder: jobStateFolder(s),
      names: await ctx.zk.getChildren(jobStateFolder(s)),
    })),
  );
  const refs = folders.flatMap(({ folder, names }) =>
    names.filter((name) => jids.has(parseRefName(name)?.jid ?? '')).map((name) => `${folder}/${name}`),
  );
  await Promise.all(refs.map((ref) => ignoreMissing(ctx.zk.delete(ref))));
  await Promise.all([...jids].map((jid) => ignoreMissing(ctx.zk.deleteRecursive(jobPath(jid)))));
  const uuid = typeof batch.submission.batchID === 'string' ? batch.submission.batchID : '';
  if (uuid) await ignoreMissing(ctx.zk.delete(batchUuidPath(uuid)));
  await ignoreMissing(ctx.zk.deleteRecursive(batchPath(batch.batchId)));
}
