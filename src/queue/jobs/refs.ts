import { isZkError, type WatchCallback, type ZkClient } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { FirstRefs, parseRefName, sortRefs } from '../tree/paths.js';

/**
 * The path of a job's ref in a state folder, whatever priority prefix it was written with (by
 * another tool: `100-`, `5-`, a priority that has changed since); undefined when it has none
 * there or the folder does not exist.
 */
export async function findRefIn(ctx: QueueContext, folder: string, jid: string): Promise<string | undefined> {
  try {
    // Walked a slice per turn: the folder may hold a backlog of a million.
    let name: string | undefined;
    const names = await ctx.zk.getChildNames(folder);
    await names.each((n) => {
      if (name === undefined && n.endsWith(jid) && parseRefName(n)?.jid === jid) name = n;
    });
    return name === undefined ? undefined : `${folder}/${name}`;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/** What {@link readFirstRefs} found in a job state folder. */
export interface FirstRefsRead {
  /** The first refs in acquisition order (at most the count asked for). */
  refs: string[];
  /** How many children the folder holds. */
  size: number;
  /**
   * When ZooKeeper's answer came (performance.now(), before the names were taken in over several
   * turns): what this process moved out of the folder before then is not in `refs`.
   */
  readAt: number;
}

/**
 * The first `countFor(size)` refs of a job state folder in acquisition order, and how many
 * children it holds (`size`); with `keep`, also up to as many more refs beyond them that `keep`
 * asks for (fair shares: jobs of a small collection behind a big one's backlog). The names are walked a slice per event-loop turn and only that many
 * are kept: a backlog of a million is a 20 MB reply, which decoded at once blocks the loop for
 * 200–450 ms (measured).
 * Rejects with NO_NODE when the folder is missing; `watch` as for `getChildren`.
 */
export async function readFirstRefs(
  zk: ZkClient,
  path: string,
  countFor: (size: number) => number,
  watch?: WatchCallback,
  keep?: (name: string) => boolean,
): Promise<FirstRefsRead> {
  const names = await zk.getChildNames(path, watch);
  const readAt = performance.now();
  const count = countFor(names.count);
  if (names.count <= count) return { refs: sortRefs(await names.toArray()), size: names.count, readAt };
  const first = new FirstRefs(count);
  const kept: string[] = [];
  await names.each((name) => {
    first.offer(name);
    if (keep !== undefined && kept.length < count && keep(name)) kept.push(name);
  });
  if (kept.length === 0) return { refs: first.take(), size: names.count, readAt };
  return { refs: sortRefs([...new Set([...first.take(), ...kept])]), size: names.count, readAt };
}
