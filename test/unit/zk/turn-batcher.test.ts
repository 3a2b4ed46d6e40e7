import { describe, expect, it } from 'vitest';
import { TurnBatcher } from '../../../src/zk/turn-batcher.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TurnBatcher', () => {
  it('hands on what one turn offered, in order, in groups within every bound', async () => {
    const sent: string[][] = [];
    const batcher = new TurnBatcher<string>(
      (group) => sent.push(group),
      [
        { of: () => 1, max: 3 },
        { of: (item) => item.length, max: 6 },
      ],
    );
    for (const item of ['a', 'bb', 'c', 'd', 'eeeee', 'ff', 'gggggggg', 'h']) batcher.add(item);
    expect(sent).toEqual([]);
    await turn();
    // 3 items at most, 6 characters at most; an item over a bound alone goes alone.
    expect(sent).toEqual([['a', 'bb', 'c'], ['d', 'eeeee'], ['ff'], ['gggggggg'], ['h']]);
  });

  it('a later turn makes later groups', async () => {
    const sent: number[][] = [];
    const batcher = new TurnBatcher<number>((group) => sent.push(group), []);
    batcher.add(1);
    batcher.add(2);
    await turn();
    batcher.add(3);
    await turn();
    expect(sent).toEqual([[1, 2], [3]]);
  });
});
