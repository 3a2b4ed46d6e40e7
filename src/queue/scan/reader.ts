import { isZkError, type ZkClient, type ZkStat } from '../../zk/index.js';

/** A node's data and stat as read. */
export interface NodeRead {
  data: Buffer | undefined;
  stat: ZkStat;
}

/**
 * Reads that tolerate nodes vanishing (undefined on NO_NODE) and never have more than a fixed
 * number of requests in flight. The client pipelines requests on one socket, so a wide window
 * is what makes a 10,000-job scan take seconds instead of minutes (DESIGN.md §6), while the
 * bound keeps a huge tree from queueing 100,000 requests (and their timeouts) at once.
 */
export interface TreeReader {
  data(path: string): Promise<NodeRead | undefined>;
  /** Several nodes in one request (multiRead), in order; undefined for each one missing. */
  dataMany(paths: readonly string[]): Promise<(NodeRead | undefined)[]>;
  children(path: string): Promise<string[] | undefined>;
  stat(path: string): Promise<ZkStat | undefined>;
}

/** Default number of requests in flight. */
export const DEFAULT_CONCURRENCY = 256;

/**
 * Maps `items` through `work` a window at a time, in order: a scan of 100,000 items never has
 * more than `window` of them (and their pending requests) alive at once.
 */
export async function mapWindowed<T, S>(
  items: readonly T[],
  window: number,
  work: (item: T) => Promise<S>,
): Promise<S[]> {
  const out: S[] = [];
  for (let i = 0; i < items.length; i += window)
    out.push(...(await Promise.all(items.slice(i, i + window).map(work))));
  return out;
}

/**
 * Maps `items` through `work` a window at a time and hands each window's results, in order, to
 * `consume`, keeping none: memory holds two windows (the one consumed and the one read meanwhile,
 * so the pipeline does not run dry between windows), whatever the number of items.
 */
export async function forEachWindow<T, S>(
  items: readonly T[],
  window: number,
  work: (item: T) => Promise<S>,
  consume: (results: S[]) => void,
): Promise<void> {
  const readFrom = (start: number): Promise<S[]> | undefined =>
    start < items.length ? Promise.all(items.slice(start, start + window).map(work)) : undefined;
  let next = readFrom(0);
  for (let start = 0; next; start += window) {
    const results = await next;
    next = readFrom(start + window);
    // Awaited on the next turn of the loop; this only keeps a throwing consume from leaving it unhandled.
    next?.catch(() => undefined);
    consume(results);
  }
}

/** Runs at most `limit` tasks at once, in the order they were asked for. */
export function createLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  const startNext = (): void => {
    const start = active < limit ? waiting.shift() : undefined;
    if (!start) return;
    active += 1;
    start();
  };
  return <T>(task: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push(() => {
        Promise.resolve()
          .then(task)
          .then(resolve, reject)
          .finally(() => {
            active -= 1;
            startNext();
          });
      });
      startNext();
    });
}

async function orUndefined<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/** A {@link TreeReader} over `zk` with at most `concurrency` requests in flight. */
export function createTreeReader(zk: ZkClient, concurrency = DEFAULT_CONCURRENCY): TreeReader {
  const limit = createLimit(Math.max(1, concurrency));
  return {
    data: (path) => limit(() => orUndefined(zk.getData(path))),
    dataMany: (paths) => limit(() => zk.getDataMany(paths)),
    children: (path) => limit(() => orUndefined(zk.getChildren(path))),
    // exists() already answers undefined for a missing node.
    stat: (path) => limit(() => zk.exists(path)),
  };
}
