import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { isQueueError, type QueueError } from '../../queue/tree/errors.js';
import type { SortValue } from './sort.js';
import { jobChild, jobStateFolder, parseRefName, refName, sortRefs } from '../../queue/tree/paths.js';
import { decodeText } from '../../queue/tree/wire.js';
import { isZkError } from '../../zk/index.js';

/**
 * The machinery behind paged and streamed lists (src/views/listing/listing.ts): items are read a window
 * at a time in list order, so a list of 100,000 jobs is read with bounded requests in flight and
 * bounded memory, and a page resumes after the last id of the one before (`after`).
 */

/** One candidate as read: its record, or why it cannot be read. */
export type Read<T> = { id: string; record: T } | { id: string; error: QueueError };

/** Items read at once while walking a list; reads are bounded further by the limit given. */
export const SCAN_WINDOW = 256;

/** Reads one id; undefined when the item vanished, its error when it cannot be read. */
async function readOne<T>(id: string, load: (id: string) => Promise<T>): Promise<Read<T> | undefined> {
  try {
    return { id, record: await load(id) };
  } catch (err) {
    if (isQueueError(err, 'NOT_FOUND')) return undefined;
    if (isQueueError(err)) return { id, error: err };
    throw err;
  }
}

/**
 * Reads `ids` in order, a window at a time with at most `concurrency` loads in flight, and yields
 * each read as its turn comes; vanished items are left out. With `summarise`, each read is
 * summarised in the same window (its own requests in flight beside the others').
 */
export function readInOrder<T>(
  ids: readonly string[],
  load: (id: string) => Promise<T>,
  concurrency: number,
): AsyncGenerator<Read<T>>;
export function readInOrder<T, S>(
  ids: readonly string[],
  load: (id: string) => Promise<T>,
  concurrency: number,
  summarise: (read: Read<T>) => Promise<S>,
): AsyncGenerator<S>;
export async function* readInOrder<T, S>(
  ids: readonly string[],
  load: (id: string) => Promise<T>,
  concurrency: number,
  summarise?: (read: Read<T>) => Promise<S>,
): AsyncGenerator<Read<T> | S> {
  const limit = createLimit(concurrency);
  const one = async (id: string): Promise<Read<T> | S | undefined> => {
    const read = await readOne(id, load);
    return read && summarise ? summarise(read) : read;
  };
  const startWindow = (start: number): Promise<(Read<T> | S | undefined)[]> => {
    const window = Promise.all(ids.slice(start, start + SCAN_WINDOW).map((id) => limit(() => one(id))));
    window.catch(() => undefined); // taken (and thrown) when its turn comes
    return window;
  };
  let window = startWindow(0);
  for (let start = 0; start < ids.length; start += SCAN_WINDOW) {
    const reads = await window;
    // The next window is read while this one is taken.
    window = startWindow(start + SCAN_WINDOW);
    for (const read of reads) if (read !== undefined) yield read;
  }
  await window;
}

/**
 * Where a page after `after` starts in ids sorted newest first (`bid`/`jid` descending): just
 * after it, or, when it is gone meanwhile, at the first id older than it.
 */
export function indexAfterDescending(ids: readonly string[], after: string | undefined): number {
  if (after === undefined) return 0;
  const found = ids.indexOf(after);
  if (found >= 0) return found + 1;
  const older = ids.findIndex((id) => id < after);
  return older >= 0 ? older : ids.length;
}

/**
 * Where a page after job `after` starts in a state folder's refs (sorted, `PP-jid`): just after
 * its ref; when it has left the folder meanwhile, where a ref with its current priority would sort
 * (priority 5 when unreadable), so the page goes on with the jobs that sort after it.
 */
export async function indexAfterRef(
  ctx: QueueContext,
  refs: readonly string[],
  after: string | undefined,
): Promise<number> {
  if (after === undefined) return 0;
  const found = refs.findIndex((name) => parseRefName(name)?.jid === after);
  if (found >= 0) return found + 1;
  const key = refName(await priorityOf(ctx, after), after);
  const later = refs.findIndex((name) => name > key);
  return later >= 0 ? later : refs.length;
}

async function priorityOf(ctx: QueueContext, jid: string): Promise<number> {
  try {
    const value = Number(decodeText((await ctx.zk.getData(jobChild(jid, 'priority'))).data));
    return Number.isSafeInteger(value) ? value : 5;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return 5;
    throw err;
  }
}

/**
 * Where a page is taken from: the candidates in list order, the index just after `page.after`,
 * and under a sort each candidate's key (a page's `next` then encodes it).
 */
export type Candidates = {
  ids: string[];
  start: number;
  keyOf?: (id: string) => SortValue;
  /** How many match in all, when `ids` holds only the page's neighbourhood (else `ids.length`). */
  total?: number;
};

/** A node's children; a missing node has none. */
export async function childrenOrEmpty(ctx: QueueContext, path: string): Promise<string[]> {
  try {
    return await ctx.zk.getChildren(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** Folders above this many children have their names kept between two listings (see {@link childrenCached}). */
const CACHE_FROM = 20_000;

type CachedNames = { key: string; names: readonly string[] };
/** Equal for two stats of the same node with the same children. */
const sameChildrenKey = (stat: { czxid: unknown; cversion: number }): string =>
  `${String(stat.czxid)}/${stat.cversion}`;
const namesByClient = new WeakMap<object, Map<string, CachedNames>>();

/**
 * A folder's children (none when it is missing), kept between calls while the folder is the
 * same node with the same children (its czxid and cversion): a listing of a million jobs reads
 * and decodes a 20 MB reply only when a job was added or removed since the last one, and one stat
 * otherwise. Decoded a slice per turn. The list is shared: never change it.
 */
export async function childrenCached(ctx: QueueContext, path: string): Promise<readonly string[]> {
  const stat = await ctx.zk.exists(path);
  if (!stat) return [];
  let cache = namesByClient.get(ctx.zk);
  if (!cache) namesByClient.set(ctx.zk, (cache = new Map<string, CachedNames>()));
  const hit = cache.get(path);
  if (hit?.key === sameChildrenKey(stat)) return hit.names;
  let read;
  try {
    read = await ctx.zk.getChildNames(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
  const names = await read.toArray();
  if (read.count >= CACHE_FROM) cache.set(path, { key: sameChildrenKey(read.stat), names });
  else cache.delete(path);
  return names;
}

/** The refs of a state folder in priority order (`PP-jid` sort so), one per job. */
export async function stateOrder(ctx: QueueContext, state: string): Promise<string[]> {
  const seen = new Set<string>();
  return sortRefs(await childrenOrEmpty(ctx, jobStateFolder(state))).filter((name) => {
    const jid = parseRefName(name)?.jid;
    if (jid === undefined || seen.has(jid)) return false;
    seen.add(jid);
    return true;
  });
}
