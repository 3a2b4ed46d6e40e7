import type { Observable } from 'rxjs';
import { isZkError, type ZkClient } from '../zk/index.js';
import { watched$ } from './watched.js';

/**
 * The children of `path`, re-read and re-watched on every change (see {@link watched$}).
 * A missing node emits `[]` and waits (exists watch) for it to be created.
 */
export function children$(zk: ZkClient, path: string): Observable<string[]> {
  return watched$(zk, async (watch) => {
    for (;;) {
      try {
        return await zk.getChildren(path, watch);
      } catch (err) {
        if (!isZkError(err, 'NO_NODE')) throw err;
      }
      // Created between the two reads: list it.
      if (!(await zk.exists(path, watch))) return [];
    }
  });
}
