import { takeWhile, type Observable } from 'rxjs';
import type { ZkClient } from '../zk/index.js';
import { readNode, type NodeValue } from './data.js';
import { watched$ } from './watched.js';

/**
 * The data of `path` as {@link data$} follows it, while `watching(value)` holds: the first value
 * that is not watched is emitted last and the stream completes. ZooKeeper keeps a watch until it
 * fires, so a watch armed on a node that never changes again (a finished request) stays on the
 * server for good; here every read looks first without a watch, and arms one (a second read,
 * whose value is emitted) only for a value that is watched. A node that changes between those
 * two reads to a value not watched keeps that one watch until its next change.
 */
export function dataWhile$(
  zk: ZkClient,
  path: string,
  watching: (value: NodeValue) => boolean,
): Observable<NodeValue> {
  return watched$(zk, async (watch) => {
    const seen = await readNode(zk, path);
    return watching(seen) ? readNode(zk, path, watch) : seen;
  }).pipe(takeWhile(watching, true));
}
