import { combineLatest, distinctUntilChanged, map, of, switchMap, type Observable } from 'rxjs';
import { WINDOWS } from '../queue/policies/store.js';
import type { ZkClient, ZkStat } from '../zk/index.js';
import { children$ } from './children.js';
import { data$ } from './data.js';

/** A window node as read: its data and stat. */
export interface WindowNodeValue {
  data: Buffer | undefined;
  stat: ZkStat;
}

const sameNames = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((name, i) => name === b[i]);

/**
 * The maintenance window nodes (`/policies/windows/<name>`) by name, each time a window is
 * created, written or deleted: a child watch on the folder and one data watch per window, nothing
 * read otherwise. A window deleted between the listing and its read is left out.
 */
export function windowNodes$(zk: ZkClient): Observable<ReadonlyMap<string, WindowNodeValue>> {
  return children$(zk, WINDOWS).pipe(
    map((names) => [...names].sort()),
    distinctUntilChanged(sameNames),
    switchMap((names) =>
      names.length === 0
        ? of(new Map<string, WindowNodeValue>())
        : combineLatest(names.map((name) => data$(zk, `${WINDOWS}/${name}`))).pipe(
            map((nodes) => {
              const found = new Map<string, WindowNodeValue>();
              nodes.forEach((node, i) => {
                if (node) found.set(names[i]!, node);
              });
              return found;
            }),
          ),
    ),
  );
}
