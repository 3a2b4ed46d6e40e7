import type { Observable } from 'rxjs';
import { isZkError, type WatchCallback, type ZkClient, type ZkStat } from '../zk/index.js';
import { watched$ } from './watched.js';

/** A node's data and stat; undefined while the node does not exist. */
export type NodeValue = { data: Buffer | undefined; stat: ZkStat } | undefined;

/**
 * The node's data and stat (undefined while it does not exist), watched when `watch` is given: a
 * node created between the two reads has its data read.
 */
export async function readNode(zk: ZkClient, path: string, watch?: WatchCallback): Promise<NodeValue> {
  for (;;) {
    try {
      return await zk.getData(path, watch);
    } catch (err) {
      if (!isZkError(err, 'NO_NODE')) throw err;
    }
    if (!(await zk.exists(path, watch))) return undefined;
  }
}

/** The data of `path`, re-read and re-watched on every change, creation and deletion. */
export function data$(zk: ZkClient, path: string): Observable<NodeValue> {
  return watched$(zk, (watch) => readNode(zk, path, watch));
}

/** Whether `path` exists, re-checked on every creation and deletion. */
export function exists$(zk: ZkClient, path: string): Observable<boolean> {
  return watched$(zk, async (watch) => (await zk.exists(path, watch)) !== undefined);
}
