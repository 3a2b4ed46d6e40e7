import type { Observable } from 'rxjs';
import { isZkError, type ZkClient } from '../zk/index.js';
import { watched$ } from './watched.js';

/**
 * Wait after a change before re-reading a folder of `size` children: none for small folders, up
 * to 1 s for 20,000; beyond that it grows with the folder (2 s at 100,000), up to 20 s from
 * 1,000,000. A folder with 10,000 children that loses one child per millisecond is then read
 * twice a second instead of a thousand times, and a backlog of a million (a 20 MB reply decoded
 * in one turn, DESIGN.md) once in 20 s instead of every second; a new child of such a folder is
 * seen within that bound, while its consumer works through the refs it holds.
 */
export function settleDelayFor(size: number): number {
  if (size <= 20_000) return Math.min(1000, Math.floor(size / 20));
  return Math.min(20_000, Math.floor(size / 50));
}

/**
 * The children of `path`, re-read and re-watched on every change (see {@link watched$}); big
 * folders are re-read after a short settling delay ({@link settleDelayFor}). A missing node
 * emits `[]` and waits (exists watch) for it to be created. With `demand`, re-reads after a
 * change wait while it is false (see `WatchedOptions.demand`).
 */
export function children$(
  zk: ZkClient,
  path: string,
  options: { demand?: Observable<boolean> } = {},
): Observable<string[]> {
  return watched$(
    zk,
    async (watch) => {
      for (;;) {
        try {
          return await zk.getChildren(path, watch);
        } catch (err) {
          if (!isZkError(err, 'NO_NODE')) throw err;
        }
        // Created between the two reads: list it.
        if (!(await zk.exists(path, watch))) return [];
      }
    },
    { delayAfterFire: (names) => settleDelayFor(names.length), demand: options.demand },
  );
}
