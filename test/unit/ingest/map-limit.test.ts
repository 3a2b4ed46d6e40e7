import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../../src/steps/services/fetch/limit.js';

const never = new AbortController().signal;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('mapLimit', () => {
  it('keeps the order of the results with at most `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimit([5, 1, 4, 2, 3], 2, never, async (item, index) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      for (let i = 0; i < item; i++) await tick();
      inFlight -= 1;
      return `${index}:${item}`;
    });
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3']);
    expect(most).toBe(2);
  });

  it('on a failure aborts the signal the others got, waits for them, then throws the failure', async () => {
    const settled: number[] = [];
    const failed = mapLimit([0, 1, 2], 3, never, async (item, _index, signal) => {
      if (item === 1) throw new Error('item 1 failed');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      settled.push(item);
      return item;
    });
    await expect(failed).rejects.toThrow('item 1 failed');
    expect(settled.sort()).toEqual([0, 2]);
  });

  it('one item is called with the caller’s own signal, and its failure is thrown as it is', async () => {
    const caller = new AbortController();
    let given: AbortSignal | undefined;
    expect(
      await mapLimit(['a'], 8, caller.signal, (item, index, signal) => {
        given = signal;
        return Promise.resolve(`${item}${index}`);
      }),
    ).toEqual(['a0']);
    expect(given).toBe(caller.signal);
    const wrong = new Error('the only item failed');
    await expect(mapLimit(['a'], 8, never, () => Promise.reject(wrong))).rejects.toBe(wrong);
    expect(await mapLimit([], 8, never, () => Promise.resolve(1))).toEqual([]);
  });

  it('the caller aborting reaches every call', async () => {
    const caller = new AbortController();
    const seen: boolean[] = [];
    const running = mapLimit([0, 1], 2, caller.signal, async (_item, _index, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      seen.push(signal.aborted);
    });
    await tick();
    caller.abort();
    await running;
    expect(seen).toEqual([true, true]);
  });
});
