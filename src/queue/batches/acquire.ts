import { batchRoles, parseBatchState } from '../../../machines/index.js';
import { isZkError } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { isQueueError, QueueError } from '../tree/errors.js';
import { folderChildren } from './jobs.js';
import { unexpandableReason } from './expandable.js';
import { loadBatch, type BatchRecord } from './load.js';
import { releaseEventually, releasingOnError, tryLock, type HeldLock } from '../locks/lock.js';
import { BATCHES, batchChild, batchPath, isBatchId } from '../tree/paths.js';
import { decodeJsonObject, encodeJson } from '../tree/wire.js';

/** A batch this session holds the lock of. */
export interface AcquiredBatch {
  batch: BatchRecord;
  lock: HeldLock;
}

/**
 * What a batch consumer looks for:
 * - `expand`: pending batches, and processing batches whose expansion never finished (crash);
 * - `report`: expanded processing batches (by this engine, or by another tool such as mrt-zk,
 *   which expands under the batch lock) whose batch-processing folder is empty, and batches
 *   left in reporting by a reporter that died;
 * - `update-report`: batches an operator sent to update-reporting.
 */
export type BatchWork = 'expand' | 'report' | 'update-report';

/**
 * The work a batch needs now, from its status, its expansion mark and whether its
 * batch-processing folder is empty (see {@link BatchWork}): said once, for the engine's watch and
 * sweep, this acquisition and the legacy migration.
 */
export function batchWorkFor(
  batch: { status: string; expansion?: string | undefined },
  processingEmpty: boolean,
): BatchWork | undefined {
  const { initial, processing, reporting, updateReporting } = batchRoles;
  if (batch.status === initial || (batch.status === processing && batch.expansion === 'started'))
    return 'expand';
  if (batch.status === processing) return processingEmpty ? 'report' : undefined;
  if (batch.status === reporting) return 'report';
  if (batch.status === updateReporting) return 'update-report';
  return undefined;
}

async function wants(ctx: QueueContext, work: BatchWork, batch: BatchRecord): Promise<boolean> {
  // The folder is read only when it decides: an expanded processing batch, about to be reported.
  if (batchWorkFor(batch, true) !== work) return false;
  if (work !== 'report' || batch.status !== batchRoles.processing) return true;
  return (await folderChildren(ctx, batch.batchId, 'batch-processing')).length === 0;
}

export interface BatchAcquireOptions {
  /** Batch ids to try (e.g. from a children$ stream); all of /batches when absent. */
  candidates?: readonly string[];
  /** Asked for each batch right before it is tried: true passes it by. */
  skip?: (bid: string) => boolean;
  onInvalid?: (bid: string, error: QueueError) => void;
  /** Called for each batch skipped because another session holds its lock. */
  onLocked?: (bid: string) => void;
  /**
   * Called for a pending batch this engine cannot expand (see unexpandableReason), which is left
   * pending; when absent, `onInvalid` is called with the reason, so the caller skips the batch
   * until its nodes change instead of reading it again at every event.
   */
  onLeft?: (bid: string, reason: string) => void;
}

async function loadUsable(
  ctx: QueueContext,
  bid: string,
  options: BatchAcquireOptions,
): Promise<BatchRecord | undefined> {
  try {
    return await loadBatch(ctx, bid);
  } catch (err) {
    if (!isQueueError(err)) throw err;
    if (err.code === 'ITEM_INVALID') options.onInvalid?.(bid, err);
    return undefined;
  }
}

/**
 * A pending batch this engine cannot expand (Merritt's ingest wrote it, with its payload on its
 * own disk) is not locked nor moved: its status message says why, written once (versioned, so a
 * concurrent acquisition by Merritt's ingest wins; Merritt clears the message when it takes it),
 * and the caller is told, once per look.
 */
async function leftPending(
  ctx: QueueContext,
  batch: BatchRecord,
  options: BatchAcquireOptions,
): Promise<boolean> {
  if (batch.status !== batchRoles.initial) return false;
  const reason = unexpandableReason(batch.submission);
  if (reason === undefined) return false;
  if (batch.message !== reason) await noteReason(ctx, batch.batchId, reason);
  if (options.onLeft) options.onLeft(batch.batchId, reason);
  else options.onInvalid?.(batch.batchId, new QueueError('ITEM_INVALID', reason, batchPath(batch.batchId)));
  return true;
}

/** Sets the status message, every other key kept as written; a batch that changed meanwhile is left as it is. */
async function noteReason(ctx: QueueContext, bid: string, reason: string): Promise<void> {
  const path = batchChild(bid, 'status');
  try {
    const { data, stat } = await ctx.zk.getData(path);
    const status = decodeJsonObject(path, data);
    if (status.message === reason || parseBatchState(String(status.status)) !== batchRoles.initial) return;
    await ctx.zk.setData(path, encodeJson({ ...status, message: reason }), stat.version);
    // The caller's onLeft logs it (the engine: one info line per batch and process).
    ctx.log.debug(
      { batchId: bid, reason },
      'pending batch left for the service that can expand it: reason written',
    );
  } catch (err) {
    if (!isZkError(err, 'BAD_VERSION') && !isZkError(err, 'NO_NODE') && !isQueueError(err)) throw err;
  }
}

/**
 * Takes the first batch (in id order) that has `work` to do and whose lock this session can
 * create; the condition is checked again once the lock is held. Unreadable batches are
 * reported through `onInvalid` and skipped.
 */
export async function acquireBatch(
  ctx: QueueContext,
  work: BatchWork,
  options: BatchAcquireOptions = {},
): Promise<AcquiredBatch | undefined> {
  const ids = [...(options.candidates ?? (await ctx.zk.getChildren(BATCHES)))].filter(isBatchId).sort();
  for (const bid of ids) {
    if (options.skip?.(bid)) continue;
    const seen = await loadUsable(ctx, bid, options);
    if (!seen || (work === 'expand' && (await leftPending(ctx, seen, options)))) continue;
    if (!(await wants(ctx, work, seen))) continue;
    const attempt = await tryLock(ctx, batchPath(bid));
    if (!attempt.held) {
      if (attempt.reason === 'locked') options.onLocked?.(bid);
      continue;
    }
    const lock = attempt.lock;
    const batch = await releasingOnError(ctx, lock, async () => {
      const read = await loadUsable(ctx, bid, options);
      return read && (await wants(ctx, work, read)) ? read : undefined;
    });
    if (batch) return { batch, lock };
    await releaseEventually(ctx, lock);
  }
  return undefined;
}
