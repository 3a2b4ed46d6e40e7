import { map, type Observable } from 'rxjs';
import type { z } from 'zod';
import { decodePolicy, type StoredPolicy } from '../queue/policies/store.js';
import type { ZkClient } from '../zk/index.js';
import { data$ } from './data.js';

/** A policy, watched: its value now and at every change (defaults while the node is absent or unreadable). */
export function policy$<T>(
  zk: ZkClient,
  path: string,
  schema: z.ZodType<T>,
  fallback: T,
  invalid?: (message: string) => void,
): Observable<StoredPolicy<T>> {
  return data$(zk, path).pipe(
    map((node) =>
      node
        ? { value: decodePolicy(node.data, schema, fallback, invalid), version: node.stat.version }
        : { value: fallback, version: -1 },
    ),
  );
}
