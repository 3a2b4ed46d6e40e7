import type { Observable } from 'rxjs';
import { isZkError, type WatchCallback, type ZkClient } from '../zk/index.js';
import { watched$ } from './watched.js';

/**
 * The least wait after a change before a job state folder is re-read by its consumer. With 64
 * jobs in flight such a folder changes with every hand-over, and re-reading it at every change
 * cost about 8 child listings a job (measured); gathering a burst's changes into one read takes
 * that to about 1, for at most this much later sight of work another process added. The intake's
 * folder reads a change after a quiet spell at once (`quietAtOnce`: a one-job batch's job was
 * taken 55 ms after its creation when it waited too). Folders operators change (holds, pauses)
 * have no floor: what they say must be seen before the work it governs; nor has a batch's
 * `batch-processing` (its end is reported at once).
 */
export const BUSY_FOLDER_SETTLE_MS = 50;

/**
 * Wait after a change before re-reading a folder of `size` children: `floorMs` for small
 * folders, then a millisecond for every 20 children (500 ms at 10,000, 5 s at 100,000), up to
 * 20 s from 400,000. A folder's names are then read at about 400 KB a second whatever its size
 * (20 bytes a name; at most that while it changes), and less beyond 400,000: a folder of 10,000
 * that loses one child per millisecond is read twice a second instead of a thousand times, and a
 * backlog of a million (a 20 MB reply) once in 20 s. A new child of such a folder is seen within
 * that bound, while its consumer works through the refs it holds (see candidatesPerRead).
 */
export function settleDelayFor(size: number, floorMs = 0): number {
  return Math.max(floorMs, Math.min(20_000, Math.floor(size / 20)));
}

/**
 * What `list` reads of folder `path`, re-read and re-watched on every change (see
 * {@link watched$}); big folders (`sizeOf` the value read) are re-read after a short settling
 * delay ({@link settleDelayFor}, at least `floorMs`; with `quietAtOnce`, a change after a quiet
 * spell that long is read at once). A missing node emits `empty` and waits (exists watch) for it
 * to be created. With `demand`, re-reads after a change wait while it is false (see
 * `WatchedOptions.demand`).
 */
export function folder$<T>(
  zk: ZkClient,
  path: string,
  list: (watch: WatchCallback) => Promise<T>,
  empty: T,
  sizeOf: (value: T) => number,
  options: { demand?: Observable<boolean>; floorMs?: number; quietAtOnce?: boolean } = {},
): Observable<T> {
  return watched$(
    zk,
    async (watch) => {
      for (;;) {
        try {
          return await list(watch);
        } catch (err) {
          if (!isZkError(err, 'NO_NODE')) throw err;
        }
        // Created between the two reads: list it.
        if (!(await zk.exists(path, watch))) return empty;
      }
    },
    {
      delayAfterFire: (value) => settleDelayFor(sizeOf(value), options.floorMs),
      demand: options.demand,
      quietAtOnce: options.quietAtOnce,
    },
  );
}

/** The children of `path` each time they change (see {@link folder$}). */
export function children$(
  zk: ZkClient,
  path: string,
  options: { demand?: Observable<boolean> } = {},
): Observable<string[]> {
  return folder$(
    zk,
    path,
    (watch) => zk.getChildren(path, watch),
    [],
    (names) => names.length,
    options,
  );
}
