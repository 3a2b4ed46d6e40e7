import type { Observable } from 'rxjs';
import { isZkError, type ZkClient, type ZkStat } from '../zk/index.js';
import { watched$ } from './watched.js';

/** A node's data and stat; undefined while the node does not exist. */
export type NodeValue = { data: Buffer | undefined; stat: ZkStat } | undefined;

/** The data of `path`, re-read and re-watched on every change, creation and deletion. */
export function data$(zk: ZkClient, path: string): Observable<NodeValue> {
  return watched$(zk, async (watch) => {
    for (;;) {
      try {
        return await zk.getData(path, watch);
      } catch (err) {
        if (!isZkError(err, 'NO_NODE')) throw err;
      }
      if (!(await zk.exists(path, watch))) return undefined;
    }
  });
}

/** Whether `path` exists, re-checked on every creation and deletion. */
export function exists$(zk: ZkClient, path: string): Observable<boolean> {
  return watched$(zk, async (watch) => (await zk.exists(path, watch)) !== undefined);
}
