import { startBenchEngine, submitSimulated, waitForBatch } from './engine-run.js';
import type { QueueContext } from '../queue/tree/context.js';
import { merrittJobLifecycle } from '../../machines/index.js';

const COMPLETED = merrittJobLifecycle.enteredBy('notify.done');

export interface FairSharesResult {
  bigJobs: number;
  smallJobs: number;
  /** Jobs of the big batch still to complete when the small one was submitted. */
  bigBacklogAtSubmit: number;
  /** From the small batch's submission to its completion. */
  smallBatchSeconds: number;
  /** From the small batch's submission to the big batch's completion: what the small one waited before. */
  bigDrainSeconds: number;
  /** The small batch's time as a share of the big backlog's (fair: about its share of the jobs). */
  ratioSmallToDrain: number;
}

/**
 * Issue 34's scenario: a big batch of collection A running, then a small batch of collection B
 * submitted. With fair shares (equal weights) B's jobs are taken in turn with A's, so B completes
 * in about the time its own jobs and the pipeline take; without them it waited for A's backlog.
 */
export async function fairShares(
  connectString: string,
  submitter: QueueContext,
  bigJobs: number,
  smallJobs: number,
): Promise<FairSharesResult> {
  const bench = await startBenchEngine(connectString);
  try {
    const completed = () => bench.entries.filter((e) => e.kind === 'commit' && e.to === COMPLETED).length;
    const big = await submitSimulated(submitter, bigJobs, 'bench', 'collection-a');
    // Under way: a tenth of the big batch done, the rest waiting.
    while (completed() < bigJobs / 10) await new Promise((r) => setTimeout(r, 20));
    const backlog = bigJobs - completed();
    const submittedAt = performance.now();
    const small = await submitSimulated(submitter, smallJobs, 'bench', 'collection-b');
    await waitForBatch(submitter, small, 600_000);
    const smallDone = performance.now();
    await waitForBatch(submitter, big, 600_000);
    const bigDone = performance.now();
    const smallBatchSeconds = (smallDone - submittedAt) / 1000;
    const bigDrainSeconds = (bigDone - submittedAt) / 1000;
    return {
      bigJobs,
      smallJobs,
      bigBacklogAtSubmit: backlog,
      smallBatchSeconds,
      bigDrainSeconds,
      ratioSmallToDrain: smallBatchSeconds / bigDrainSeconds,
    };
  } finally {
    await bench.stop();
  }
}
