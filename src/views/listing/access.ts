import type { AccessQueue, AccessState } from '../../../machines/index.js';
import { isZkError } from '../../zk/index.js';
import { loadAccess, type AccessRecord } from '../../queue/access/requests.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { isQueueError, QueueError } from '../../queue/tree/errors.js';
import { ACCESS_QUEUE_NAMES } from '../../queue/access/names.js';
import { ITEM_CONCURRENCY, type Listing, type Page } from './listing.js';
import { lockOwner } from '../../queue/locks/lock.js';
import { ACCESS_PREFIX, accessPath, accessQueuePath } from '../../queue/tree/paths.js';
import { decodeJsonObject } from '../../queue/tree/wire.js';

// In a module of their own so the command line lists them without loading the queue.
export { ACCESS_QUEUE_NAMES, accessStatusFilterValues } from '../../queue/access/names.js';

/** An access request in a list: where it is, its status, and its token as written. */
export interface AccessSummary {
  queue: AccessQueue;
  qid: string;
  /** `invalid` when its nodes cannot be read or its status is one the lifecycle does not know. */
  status: AccessState | 'invalid';
  /** For an `invalid` request whose status node is readable: the status as written (`Consumed`). */
  rawStatus?: string;
  message: string | null;
  lastModified: string;
  /** Some session holds the request's lock (an assembly runs). */
  locked: boolean;
  /** The `token` node: token (a UUID when Merritt's storage service wrote it), delivery-node, … */
  token: Record<string, unknown>;
}

/** An access request shown in full: its summary and who holds its lock. */
export interface AccessDetails extends AccessSummary {
  path: string;
  lockOwner?: string;
}

/** What {@link listAccess} keeps. */
export type AccessFilter = { queue?: AccessQueue; status?: AccessState | 'invalid' };

/** Whether `name` is an access queue (`small`, `large`). */
export const isAccessQueue = (name: string): name is AccessQueue =>
  (ACCESS_QUEUE_NAMES as readonly string[]).includes(name);

/**
 * Where an access request is, from `<queue>/<qid>` or a bare `qid…` (ZooKeeper numbers each
 * queue's requests separately, so a bare id must be found in exactly one queue). NOT_FOUND when
 * no queue has it; BAD_REQUEST when the reference is malformed or names a request in both queues.
 */
export async function resolveAccess(
  ctx: QueueContext,
  ref: string,
): Promise<{ queue: AccessQueue; qid: string }> {
  const [first, second] = ref.split('/', 2);
  const named = second === undefined ? undefined : first;
  const qid = second ?? first ?? '';
  if (!/^qid\d+$/.test(qid) || (named !== undefined && !isAccessQueue(named)))
    throw new QueueError('BAD_REQUEST', `"${ref}" is not an access request: use <small|large>/qidN or qidN`);
  if (named !== undefined) return { queue: named, qid };
  const found: AccessQueue[] = [];
  for (const queue of ACCESS_QUEUE_NAMES) if (await ctx.zk.exists(accessPath(queue, qid))) found.push(queue);
  if (found.length === 0) throw new QueueError('NOT_FOUND', `no access queue holds ${qid}`);
  if (found.length > 1)
    throw new QueueError(
      'BAD_REQUEST',
      `${qid} is in both access queues: name one (small/${qid}, large/${qid})`,
    );
  return { queue: found[0]!, qid };
}

/** The status as written, for a request the lifecycle cannot read (an unknown status name). */
async function rawStatusOf(ctx: QueueContext, path: string): Promise<string | undefined> {
  try {
    const { data } = await ctx.zk.getData(`${path}/status`);
    const status = decodeJsonObject(`${path}/status`, data).status;
    return typeof status === 'string' ? status : undefined;
  } catch (err) {
    if (isZkError(err, 'NO_NODE') || isQueueError(err)) return undefined;
    throw err;
  }
}

function summaryOf(request: AccessRecord, locked: boolean): AccessSummary {
  return {
    queue: request.queue,
    qid: request.accessId,
    status: request.status,
    message: request.message,
    lastModified: request.lastModified,
    locked,
    token: request.token,
  };
}

/**
 * One access request as a summary; a request that cannot be read is `invalid` with the reason
 * as its message, and undefined when it is gone.
 */
async function summarise(
  ctx: QueueContext,
  queue: AccessQueue,
  qid: string,
): Promise<AccessSummary | undefined> {
  const path = accessPath(queue, qid);
  const locked = async () => (await ctx.zk.exists(`${path}/lock`)) !== undefined;
  try {
    const [request, isLocked] = await Promise.all([loadAccess(ctx, queue, qid), locked()]);
    return summaryOf(request, isLocked);
  } catch (err) {
    if (!isQueueError(err)) throw err;
    if (err.code === 'NOT_FOUND') return undefined;
    const rawStatus = await rawStatusOf(ctx, path);
    return {
      queue,
      qid,
      status: 'invalid',
      ...(rawStatus === undefined ? {} : { rawStatus }),
      message: err.message,
      lastModified: '',
      locked: await locked(),
      token: {},
    };
  }
}

/**
 * The access requests of both queues (or one), oldest first within a queue, filtered by status.
 * Every request of the chosen queues is read (access queues are short-lived and small).
 */
export async function listAccess(
  ctx: QueueContext,
  filter: AccessFilter,
  page: Page,
): Promise<Listing<AccessSummary>> {
  const limit = createLimit(ITEM_CONCURRENCY);
  const queues = filter.queue ? [filter.queue] : ACCESS_QUEUE_NAMES;
  const ids = (
    await Promise.all(
      queues.map(async (queue) => {
        const names = await ctx.zk.getChildren(accessQueuePath(queue)).catch((err: unknown) => {
          if (isZkError(err, 'NO_NODE')) return [] as string[];
          throw err;
        });
        return names
          .filter((name) => name.startsWith(ACCESS_PREFIX))
          .sort()
          .map((qid) => ({ queue, qid }));
      }),
    )
  ).flat();
  const read = await Promise.all(ids.map(({ queue, qid }) => limit(() => summarise(ctx, queue, qid))));
  const matching = read.filter(
    (item): item is AccessSummary =>
      item !== undefined && (filter.status === undefined || item.status === filter.status),
  );
  return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
}

/** One access request in full, by `<queue>/<qid>` or a bare qid. NOT_FOUND when there is none. */
export async function showAccess(ctx: QueueContext, ref: string): Promise<AccessDetails> {
  const { queue, qid } = await resolveAccess(ctx, ref);
  const path = accessPath(queue, qid);
  const [summary, owner] = await Promise.all([summarise(ctx, queue, qid), lockOwner(ctx, path)]);
  if (!summary) throw new QueueError('NOT_FOUND', `${path} does not exist`, path);
  return { ...summary, path, ...(owner === undefined ? {} : { lockOwner: owner }) };
}
