import { batchStates } from '../../../machines/index.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { QueueError } from '../../queue/tree/errors.js';
import { childrenOrEmpty, stateOrder, type Candidates } from './scan.js';
import { indexAfterCursor, sortIds, type Sort, type SortValue } from './sort.js';
import { JOBS, batchChild, isJobId, parseRefName } from '../../queue/tree/paths.js';
import { jobIndexOf } from '../job-index/job-index.js';
import { readNodesInChunks } from '../job-index/nodes.js';
import { parseTimestamp } from '../../queue/tree/timestamps.js';
import { decodeBatchStatus } from '../../queue/tree/wire.js';

/**
 * The candidates of a sorted list (src/views/listing/listing.ts) and each one's sort key, read as cheaply
 * as the key allows: ids need nothing, priority and state the state folders' ref names, a job's
 * update the job index, a batch's update or status one read of its status node.
 */

/** A batch's status and its last change, as keys; unreadable statuses sort last. */
async function batchKeys(
  ctx: QueueContext,
  bids: string[],
): Promise<Map<string, { state: number; updated: number }>> {
  const keys = new Map<string, { state: number; updated: number }>();
  await readNodesInChunks(
    ctx,
    bids,
    (bid) => [batchChild(bid, 'status')],
    (bid, [node]) => {
      try {
        const status = decodeBatchStatus('status', node?.data);
        const updated = parseTimestamp(status.lastModified)?.getTime() ?? node?.stat.mtime ?? 0;
        keys.set(bid, { state: batchStates.indexOf(status.status), updated });
      } catch {
        keys.set(bid, { state: batchStates.length, updated: node?.stat.mtime ?? 0 });
      }
    },
  );
  return keys;
}

/** Batches in `sort`'s order: by bid, or by each batch's status node (one read per batch). */
export async function sortedBatches(
  ctx: QueueContext,
  bids: string[],
  sort: Sort,
  after?: string,
): Promise<Candidates> {
  if (sort.by === 'priority')
    throw new QueueError('BAD_REQUEST', 'sort: batches have no priority (created, updated or state)');
  let keyOf: (bid: string) => SortValue = (bid) => bid;
  if (sort.by !== 'created') {
    const keys = await batchKeys(ctx, bids);
    const field = sort.by;
    keyOf = (bid) => keys.get(bid)?.[field] ?? 0;
  }
  const ids = sortIds(bids, keyOf, sort);
  return { ids, start: indexAfterCursor(ids, keyOf, sort, after), keyOf };
}

/**
 * Jobs in `sort`'s order: by jid; by priority or state from the state folders' refs (no job read);
 * by update from the job index (src/views/job-index/job-index.ts, refreshed when older than 2 s). A job
 * with no ref sorts as priority 5 and after every state; one the index has not seen yet as just updated.
 */
export async function sortedJobs(
  ctx: QueueContext,
  state: string | undefined,
  inBatch: Set<string> | undefined,
  sort: Sort,
  after?: string,
): Promise<Candidates> {
  const index = jobIndexOf(ctx);
  const all =
    state !== undefined
      ? (await stateOrder(ctx, state)).map((name) => parseRefName(name)!.jid)
      : inBatch
        ? [...inBatch]
        : (await childrenOrEmpty(ctx, JOBS)).filter(isJobId);
  let keyOf: (jid: string) => SortValue = (jid) => jid;
  if (sort.by === 'priority' || sort.by === 'state') {
    const places = await index.freshPlaces();
    const { states } = ctx.lifecycle;
    keyOf =
      sort.by === 'priority'
        ? (jid) => places.get(jid)?.priority ?? 5
        : (jid) => {
            const place = places.get(jid);
            return place ? states.indexOf(place.state) : states.length;
          };
  } else if (sort.by === 'updated') {
    const jobs = await index.fresh();
    const now = Date.now();
    keyOf = (jid) => jobs.get(jid)?.updated ?? now;
  }
  const ids = sortIds(all, keyOf, sort);
  return { ids, start: indexAfterCursor(ids, keyOf, sort, after), keyOf };
}
