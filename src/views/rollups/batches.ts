import { listBatchJobs } from '../../queue/batches/jobs.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { progressCategories, progressOf, type Progress } from './categories.js';
import { jobIndexOf } from '../job-index/job-index.js';

/** A batch's jobs by state (states with none left out) and by progress category. */
export interface BatchProgress {
  states: Record<string, number>;
  progress: Progress;
}

/** Batches whose folders are listed at once. */
const BATCH_CONCURRENCY = 8;

/**
 * Each batch's jobs counted by state, with no job read: the batch's folders name its jobs, the
 * state folders (listed at most a second ago, shared by every request) their states. A job of the
 * batch without a ref anywhere (a half-created or vanished one) is not counted.
 */
export async function batchProgress(
  ctx: QueueContext,
  bids: readonly string[],
): Promise<Map<string, BatchProgress>> {
  const places = await jobIndexOf(ctx).freshPlaces();
  const categories = progressCategories(ctx.lifecycle);
  const limit = createLimit(BATCH_CONCURRENCY);
  const out = new Map<string, BatchProgress>();
  await Promise.all(
    bids.map((bid) =>
      limit(async () => {
        const states: Record<string, number> = {};
        for (const { jid } of await listBatchJobs(ctx, bid)) {
          const state = places.get(jid)?.state;
          if (state !== undefined) states[state] = (states[state] ?? 0) + 1;
        }
        out.set(bid, { states, progress: progressOf(states, categories) });
      }),
    ),
  );
  return out;
}
