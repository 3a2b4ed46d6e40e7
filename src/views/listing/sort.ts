import { QueueError } from '../../queue/tree/errors.js';

/**
 * Sorted lists (issue 21): `created` is the id's order (ZooKeeper's sequence numbers), `updated`
 * the status's last change, `priority` the job's priority (jobs only), `state` the lifecycle's
 * table order. Ties are broken by id, so the order is total and a cursor can name a place in it.
 */
export const SORT_KEYS = ['created', 'updated', 'priority', 'state'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
export type Sort = { by: SortKey; order: SortOrder };

/** An item's sort key: a number (time, priority, table position) or the id itself. */
export type SortValue = number | string;

type CursorPayload = [SortKey, SortOrder, SortValue, string];

/** The `after` of the page following `id` under `sort`: the sort and the item's key, so paging is stable. */
export function encodeCursor(sort: Sort, value: SortValue, id: string): string {
  const payload: CursorPayload = [sort.by, sort.order, value, id];
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function decodeCursor(cursor: string): CursorPayload | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 4) return undefined;
    const [by, order, key, id] = value as unknown[];
    const keyOk = typeof key === 'number' || typeof key === 'string';
    const known = SORT_KEYS.includes(by as SortKey) && SORT_ORDERS.includes(order as SortOrder);
    return known && keyOk && typeof id === 'string' ? (value as CursorPayload) : undefined;
  } catch {
    return undefined;
  }
}

function compare(a: [SortValue, string], b: [SortValue, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** `ids` in `sort`'s order (key, then id; both reversed for `desc`). */
export function sortIds(ids: readonly string[], keyOf: (id: string) => SortValue, sort: Sort): string[] {
  if (sort.by === 'created') {
    // The key is the id: a plain sort (ids are fixed-width), several times faster on 50,000.
    const sorted = [...ids].sort();
    return sort.order === 'asc' ? sorted : sorted.reverse();
  }
  const sign = sort.order === 'asc' ? 1 : -1;
  return ids
    .map((id): [SortValue, string] => [keyOf(id), id])
    .sort((a, b) => sign * compare(a, b))
    .map(([, id]) => id);
}

/**
 * Where the page after cursor `after` starts in `ids` (sorted by {@link sortIds}): at the first
 * item that sorts after the cursor's key and id, so an item that moved or vanished since does not
 * shift the page. A bare id (a page's `next` of the unsorted list) continues after that item.
 * BAD_REQUEST for a cursor made under another sort, or one that is neither.
 */
export function indexAfterCursor(
  ids: readonly string[],
  keyOf: (id: string) => SortValue,
  sort: Sort,
  after: string | undefined,
): number {
  if (after === undefined) return 0;
  const payload = decodeCursor(after);
  if (!payload) {
    const found = ids.indexOf(after);
    if (found >= 0) return found + 1;
    throw new QueueError('BAD_REQUEST', `after: "${after}" is not a cursor of this list (a page's next)`);
  }
  const [by, order, value, id] = payload;
  if (by !== sort.by || order !== sort.order)
    throw new QueueError(
      'BAD_REQUEST',
      `after: the cursor was made for sort=${by}&order=${order}, not sort=${sort.by}&order=${sort.order}`,
    );
  const sign = order === 'asc' ? 1 : -1;
  const later = ids.findIndex((other) => sign * compare([keyOf(other), other], [value, id]) > 0);
  return later >= 0 ? later : ids.length;
}
