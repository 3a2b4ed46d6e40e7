import { BATCH_FOLDERS, type BatchFolder } from '../../../machines/index.js';
import { isZkError } from '../../zk/index.js';
import type { BatchRecord } from './load.js';
import type { QueueContext } from '../tree/context.js';
import { batchFolderPath } from '../tree/paths.js';

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

/** How many job refs each of a batch's folders holds. */
export interface BatchJobCounts {
  processing: number;
  completed: number;
  failed: number;
  deleted: number;
}

/**
 * A batch's job refs per folder, from the folders' stats (no list is read: a batch of 50,000 jobs
 * costs four small replies); a folder another tool never made counts 0. `mrtq batches`, `mrtq
 * show` and the API count a batch's jobs with this.
 */
export async function countBatchJobs(ctx: QueueContext, bid: string): Promise<BatchJobCounts> {
  const [processing = 0, completed = 0, failed = 0, deleted = 0] = await Promise.all(
    BATCH_FOLDERS.map(async (folder) => (await ctx.zk.childCount(batchFolderPath(bid, folder))) ?? 0),
  );
  return { processing, completed, failed, deleted };
}

/**
 * How many jobs a batch has, as every listing tells it: the count this engine's expansion wrote
 * (`job_count`) once it is done; for a batch another tool expanded (Merritt's mrt-zk writes no
 * count: its batches have their refs and nothing else, and it writes every job under the batch's
 * lock), the refs in its four folders; undefined while no expansion has finished (a batch not yet
 * acquired, or this engine's expansion under way).
 */
export function batchJobCount(
  batch: Pick<BatchRecord, 'expansion' | 'jobCount' | 'hasStates'>,
  counts: BatchJobCounts,
): number | undefined {
  if (batch.expansion === 'done') return batch.jobCount;
  if (batch.expansion === 'foreign' && batch.hasStates)
    return counts.processing + counts.completed + counts.failed + counts.deleted;
  return undefined;
}
