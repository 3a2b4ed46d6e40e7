import { loadBatch, type BatchRecord } from '../../src/queue/batches/load.js';
import { listBatchJobs } from '../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../src/queue/tree/context.js';
import { loadJob, type JobRecord } from '../../src/queue/jobs/load.js';
import { eventually } from './eventually.js';

/** The batch once it has ended, completed or failed (waiting up to `ms`). */
export function batchSettled(ctx: QueueContext, bid: string, ms = 60_000): Promise<BatchRecord> {
  return eventually(
    () => loadBatch(ctx, bid),
    (b) => b.status === 'completed' || b.status === 'failed',
    ms,
    100,
  );
}

/** Every job of a batch, in the order of their manifest positions. */
export async function batchJobRecords(ctx: QueueContext, bid: string): Promise<JobRecord[]> {
  const jobs = await Promise.all((await listBatchJobs(ctx, bid)).map(({ jid }) => loadJob(ctx, jid)));
  const position = (job: JobRecord): number => Number(job.configuration.manifest_position ?? 0);
  return jobs.sort((a, b) => position(a) - position(b));
}
