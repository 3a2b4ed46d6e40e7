import { folderChildren } from '../../queue/batches/jobs.js';
import { batchFoldersFor, jobMatches, type BulkFilter } from './filter.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { isQueueError, QueueError } from '../../queue/tree/errors.js';
import { loadJob, type JobRecord } from '../../queue/jobs/load.js';
import { ITEM_CONCURRENCY } from '../../views/listing/listing.js';
import { batchPath, jobStateFolder, parseRefName } from '../../queue/tree/paths.js';
import { isZkError } from '../../zk/index.js';

/** The jobs a bulk action is about, and those among its candidates that could not be read. */
export interface BulkSelection {
  jobs: JobRecord[];
  unreadable: { jid: string; error: QueueError }[];
}

async function stateFolderJids(ctx: QueueContext, state: string): Promise<string[]> {
  try {
    const refs = await ctx.zk.getChildren(jobStateFolder(state));
    return refs.map((ref) => parseRefName(ref)?.jid).filter((jid) => jid !== undefined);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

async function jidsInStates(ctx: QueueContext, states: readonly string[]): Promise<Set<string>> {
  const lists = await Promise.all(states.map((state) => stateFolderJids(ctx, state)));
  return new Set(lists.flat());
}

/**
 * Candidate job ids from the narrowest index there is: a batch's folders when the filter names a
 * batch (batch-failed alone for failed jobs; batch-processing narrowed by the state folders),
 * else the state folders. Never every child of `/jobs`.
 */
async function candidates(
  ctx: QueueContext,
  filter: BulkFilter,
  states: readonly string[],
): Promise<string[]> {
  const bid = filter.batch;
  if (bid === undefined) return [...(await jidsInStates(ctx, states))];
  if (!(await ctx.zk.exists(batchPath(bid))))
    throw new QueueError('NOT_FOUND', `batch ${bid} does not exist`, batchPath(bid));
  const found = new Set<string>();
  for (const { folder, narrowBy } of batchFoldersFor(ctx.lifecycle, states)) {
    const refs = await folderChildren(ctx, bid, folder);
    const inStates = narrowBy ? await jidsInStates(ctx, narrowBy) : undefined;
    for (const jid of refs) if (!inStates || inStates.has(jid)) found.add(jid);
  }
  return [...found];
}

/**
 * Finds the jobs in `states` that match the filter: candidates from the indexes (see
 * {@link candidates}), each then read (a few at a time) and checked, since a ref may be stale
 * and the collection and profile are in the job's configuration. A job removed meanwhile is left
 * out; one that cannot be read is returned apart, with why.
 */
export async function selectBulkJobs(
  ctx: QueueContext,
  filter: BulkFilter,
  states: readonly string[],
): Promise<BulkSelection> {
  const jids = await candidates(ctx, filter, states);
  const limit = createLimit(ITEM_CONCURRENCY);
  const selection: BulkSelection = { jobs: [], unreadable: [] };
  await Promise.all(
    jids.map((jid) =>
      limit(async () => {
        try {
          const job = await loadJob(ctx, jid);
          if (jobMatches(job, filter, states)) selection.jobs.push(job);
        } catch (err) {
          if (isQueueError(err, 'NOT_FOUND')) return;
          if (!isQueueError(err)) throw err;
          selection.unreadable.push({ jid, error: err });
        }
      }),
    ),
  );
  return selection;
}
