import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { isQueueError } from '../../../src/queue/tree/errors.js';
import { encodeCursor, indexAfterCursor, sortIds, type Sort } from '../../../src/views/listing/sort.js';
import { progressCategories, progressOf } from '../../../src/views/rollups/categories.js';

const priority: Record<string, number> = { jid01: 5, jid02: 1, jid03: 5, jid04: 9, jid05: 1 };
const keyOf = (id: string) => priority[id]!;
const ids = Object.keys(priority);

describe('sorted lists and their cursors', () => {
  it('orders by key, ties by id, both reversed for desc', () => {
    expect(sortIds(ids, keyOf, { by: 'priority', order: 'asc' })).toEqual([
      'jid02',
      'jid05',
      'jid01',
      'jid03',
      'jid04',
    ]);
    expect(sortIds(ids, keyOf, { by: 'priority', order: 'desc' })).toEqual([
      'jid04',
      'jid03',
      'jid01',
      'jid05',
      'jid02',
    ]);
    expect(sortIds(ids, keyOf, { by: 'created', order: 'desc' })).toEqual([
      'jid05',
      'jid04',
      'jid03',
      'jid02',
      'jid01',
    ]);
  });

  it('a page after a cursor starts after its key and id, also when that item has moved away', () => {
    const sort: Sort = { by: 'priority', order: 'asc' };
    const sorted = sortIds(ids, keyOf, sort);
    expect(indexAfterCursor(sorted, keyOf, sort, encodeCursor(sort, 1, 'jid05'))).toBe(2);
    // jid01 (priority 5) is gone: the page goes on with the next item of priority 5 after it.
    const without = sorted.filter((id) => id !== 'jid01');
    expect(without[indexAfterCursor(without, keyOf, sort, encodeCursor(sort, 5, 'jid01'))]).toBe('jid03');
    expect(indexAfterCursor(sorted, keyOf, sort, encodeCursor(sort, 9, 'jid04'))).toBe(sorted.length);
    // A bare id (an unsorted page's next) continues after that item.
    expect(indexAfterCursor(sorted, keyOf, sort, 'jid01')).toBe(3);
  });

  it('refuses a cursor of another sort or order, and one that names nothing', () => {
    const sort: Sort = { by: 'priority', order: 'asc' };
    const refusal = (after: string) => {
      try {
        indexAfterCursor(ids, keyOf, sort, after);
        return undefined;
      } catch (err) {
        return isQueueError(err, 'BAD_REQUEST') ? err.message : err;
      }
    };
    expect(refusal(encodeCursor({ by: 'priority', order: 'desc' }, 5, 'jid01'))).toContain('order=desc');
    expect(refusal(encodeCursor({ by: 'state', order: 'asc' }, 5, 'jid01'))).toContain('sort=state');
    expect(refusal('jid99')).toContain('not a cursor');
  });
});

describe('progress categories, derived from the job machine', () => {
  it("groups Merritt's job states: final, failure targets, working, the rest", () => {
    const categories = progressCategories(merrittJobLifecycle);
    expect(categories.failed).toEqual(['failed']);
    expect(categories.done).toEqual(['completed', 'deleted']);
    expect(categories.inFlight).toEqual([...merrittJobLifecycle.workingStates]);
    expect(categories.waiting).toEqual(['pending', 'held']);
    const all = Object.values(categories).flat().sort();
    expect(all).toEqual([...merrittJobLifecycle.states].sort());
  });

  it('sums counts by state into the categories; an unknown state counts as waiting', () => {
    const categories = progressCategories(merrittJobLifecycle);
    expect(
      progressOf({ completed: 4, deleted: 1, failed: 2, storing: 3, pending: 5, mystery: 1 }, categories),
    ).toEqual({
      done: 5,
      failed: 2,
      inFlight: 3,
      waiting: 6,
      total: 16,
    });
  });
});
