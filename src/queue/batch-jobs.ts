import { isZkError } from '../zk/index.js';
import type { QueueContext } from './context.js';
import { BATCH_FOLDERS, batchFolderPath, type BatchFolder } from './paths.js';

/**
 * The batch folder a job's ref belongs in: completed, failed and deleted jobs in theirs, every
 * other in batch-processing (seeds 000/003; a job in a state its lifecycle adds is still in work).
 */
export function batchFolderForJob(state: string): BatchFolder {
  if (state === 'completed') return 'batch-completed';
  if (state === 'failed') return 'batch-failed';
  if (state === 'deleted') return 'batch-deleted';
  return 'batch-processing';
}

/** Children of a batch folder; a missing folder (batches written by other tools) is empty. */
export async function folderChildren(ctx: QueueContext, bid: string, folder: BatchFolder): Promise<string[]> {
  try {
    return await ctx.zk.getChildren(batchFolderPath(bid, folder));
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** Every job ref of a batch with the folder it sits in. */
export async function listBatchJobs(
  ctx: QueueContext,
  bid: string,
): Promise<{ jid: string; folder: BatchFolder }[]> {
  const lists = await Promise.all(BATCH_FOLDERS.map((folder) => folderChildren(ctx, bid, folder)));
  return lists.flatMap((jids, i) => jids.map((jid) => ({ jid, folder: BATCH_FOLDERS[i] as BatchFolder })));
}
