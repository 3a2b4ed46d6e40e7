import { batchRoles } from '../../machines/index.js';
import { releaseBatch } from './batches.js';
import { releaseJob } from './jobs.js';
import { loadBatch } from '../queue/batches/load.js';
import type { QueueContext } from '../queue/tree/context.js';
import { isQueueError } from '../queue/tree/errors.js';
import { loadJob } from '../queue/jobs/load.js';
import { BATCHES, isBatchId, jobStateFolder, parseRefName } from '../queue/tree/paths.js';
import { clearCollectionHold } from '../queue/locks/queue-pause.js';

export interface CollectionRelease {
  jobs: string[];
  batches: string[];
  /** Items that could not be released, with why (locked, unreadable…). */
  failed: { item: string; message: string }[];
}

/**
 * Clears a collection hold and releases its held jobs and batches (held → pending), each through
 * the machine. An item that cannot be released (locked, unreadable) is reported, not fatal.
 */
export async function releaseCollection(ctx: QueueContext, mnemonic: string): Promise<CollectionRelease> {
  await clearCollectionHold(ctx, mnemonic);
  return releaseHeldItems(ctx, mnemonic);
}

/**
 * Releases the held jobs and batches of a collection whose hold is gone (held → pending), as
 * {@link releaseCollection} does after clearing it; a maintenance window's end lifts its own hold
 * first (only if it is still the window's), then calls this.
 */
export async function releaseHeldItems(ctx: QueueContext, mnemonic: string): Promise<CollectionRelease> {
  const result: CollectionRelease = { jobs: [], batches: [], failed: [] };
  const attempt = async (
    item: string,
    kind: 'jobs' | 'batches',
    work: () => Promise<unknown>,
  ): Promise<void> => {
    try {
      await work();
      result[kind].push(item);
    } catch (err) {
      if (!isQueueError(err)) throw err;
      result.failed.push({ item, message: err.message });
    }
  };
  const held = ctx.lifecycle.enteredBy('job.held');
  for (const name of held === undefined ? [] : await ctx.zk.getChildren(jobStateFolder(held))) {
    const jid = parseRefName(name)?.jid;
    if (!jid) continue;
    const job = await loadJob(ctx, jid).catch(() => undefined);
    if (job?.configuration.collection === mnemonic) await attempt(jid, 'jobs', () => releaseJob(ctx, jid));
  }
  for (const bid of (await ctx.zk.getChildren(BATCHES)).filter(isBatchId)) {
    const batch = await loadBatch(ctx, bid).catch(() => undefined);
    if (batch?.status === batchRoles.held && batch.submission.collection === mnemonic) {
      await attempt(bid, 'batches', () => releaseBatch(ctx, bid));
    }
  }
  ctx.log.info(
    { collection: mnemonic, jobs: result.jobs.length, batches: result.batches.length },
    'collection released',
  );
  return result;
}
