import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { batchHolding } from './incomplete.js';
import { loadJob, type JobRecord } from './load.js';
import type { HeldLock } from '../locks/lock.js';
import { jobChild, jobPath } from '../tree/paths.js';

/**
 * Reads a job an operator action holds the lock of. A job whose `bid` node is gone is still one
 * of a batch, the one whose folders hold it (issue 32): its bid is written back first, checked
 * against the lock in one multi, as the engine does when it fails such a job, so the action moves
 * the job's entry in that batch like any other. ITEM_INVALID naming the node when no batch holds it.
 */
export async function loadJobRestoringBid(
  ctx: QueueContext,
  jid: string,
  lock: HeldLock,
): Promise<JobRecord> {
  const job = await loadJob(ctx, jid, { bidOptional: true });
  if (!job.bidMissing) return job;
  const path = jobChild(jid, 'bid');
  const folder = ctx.lifecycle.batchFolderOf(job.status);
  const holder = await batchHolding(ctx, jid, folder);
  if (holder === undefined)
    throw new QueueError(
      'ITEM_INVALID',
      `${path} is missing and no batch lists job ${jid} in its ${folder} folder: write the id of the job's batch into ${path}, then try again`,
      jobPath(jid),
    );
  const exists = await ctx.zk.exists(path);
  await ctx.zk.multi([
    { op: 'check', path: lock.path },
    exists ? { op: 'set', path, data: holder } : { op: 'create', path, data: holder },
  ]);
  ctx.log.warn(
    { jobId: jid, batchId: holder },
    `${path} was missing: written back as ${holder}, the batch that holds the job`,
  );
  return loadJob(ctx, jid);
}
