import { combineLatest, Subscription } from 'rxjs';
import { batchWorkFor, type BatchWork } from '../queue/batches/acquire.js';
import { BATCHES, batchChild, batchFolderPath, isBatchId } from '../queue/tree/paths.js';
import { decodeBatchStatus } from '../queue/tree/wire.js';
import { batchIds$, batchProcessingEmpty$, batchStatus$, type NodeValue } from '../streams/index.js';
import type { ZkClient } from '../zk/index.js';

/** What a batch needs now, from its status and whether its batch-processing folder is empty. */
export function batchWorkOf(bid: string, status: NodeValue, processingEmpty: boolean): BatchWork | undefined {
  if (!status) return undefined;
  let decoded;
  try {
    decoded = decodeBatchStatus(batchChild(bid, 'status'), status.data);
  } catch {
    return undefined; // doctor reports it; acquiring it would only skip it again
  }
  return batchWorkFor(decoded, processingEmpty);
}

/** The batch work kinds, in the order they are offered. */
export const BATCH_WORK: readonly BatchWork[] = ['expand', 'report', 'update-report'];

/** Statuses read per request in a sweep: well under ZooKeeper's 1 MB packet limit. */
const SWEEP_CHUNK = 200;

/**
 * What every batch needs now, read afresh (the sweep: a safety net for a watch that was missed).
 * Statuses are read in chunks; a batch-processing folder only for processing batches.
 */
export async function batchWorkNow(zk: ZkClient): Promise<Map<BatchWork, string[]>> {
  const bids = (await zk.getChildren(BATCHES)).filter(isBatchId).sort();
  const byWork = new Map<BatchWork, string[]>(BATCH_WORK.map((work) => [work, []]));
  for (let i = 0; i < bids.length; i += SWEEP_CHUNK) {
    const chunk = bids.slice(i, i + SWEEP_CHUNK);
    const statuses = await zk.getDataMany(chunk.map((bid) => batchChild(bid, 'status')));
    await Promise.all(
      chunk.map(async (bid, j) => {
        const status = statuses[j];
        // Only an expanded processing batch depends on its folder: the rest need no read.
        const waitsOnJobs = status !== undefined && batchWorkOf(bid, status, true) === 'report';
        const empty = waitsOnJobs
          ? ((await zk.childCount(batchFolderPath(bid, 'batch-processing'))) ?? 0) === 0
          : true;
        const work = status ? batchWorkOf(bid, status, empty) : undefined;
        if (work) byWork.get(work)!.push(bid);
      }),
    );
  }
  return byWork;
}

/**
 * Watches every batch's status and batch-processing folder and tells, after each change, which
 * batches need which work. The batch-processing folder becoming empty is what moves a
 * processing batch to reporting.
 */
export function watchBatches(zk: ZkClient, offer: (work: BatchWork, bids: string[]) => void): Subscription {
  const wants = new Map<string, BatchWork | undefined>();
  const perBatch = new Map<string, Subscription>();
  const publish = (): void => {
    for (const work of BATCH_WORK) {
      offer(
        work,
        [...wants]
          .filter(([, w]) => w === work)
          .map(([bid]) => bid)
          .sort(),
      );
    }
  };
  const all = batchIds$(zk).subscribe((ids) => {
    const current = new Set(ids);
    for (const bid of ids) {
      if (perBatch.has(bid)) continue;
      const watch = combineLatest([batchStatus$(zk, bid), batchProcessingEmpty$(zk, bid)]).subscribe(
        ([status, empty]) => {
          wants.set(bid, batchWorkOf(bid, status, empty));
          publish();
        },
      );
      perBatch.set(bid, watch);
    }
    for (const [bid, watch] of perBatch) {
      if (current.has(bid)) continue;
      watch.unsubscribe();
      perBatch.delete(bid);
      wants.delete(bid);
    }
    publish();
  });
  return new Subscription(() => {
    all.unsubscribe();
    for (const watch of perBatch.values()) watch.unsubscribe();
  });
}
