import { describe, expect, it } from 'vitest';
import { FairOrder } from '../../../../src/engine/shares/fair-order.js';
import { shareKeyOf, sharesPolicySchema } from '../../../../src/engine/shares/policy.js';

const keyOf = (candidate: string) => (candidate.startsWith('?') ? undefined : candidate[0]);
const noRoom = () => undefined;

describe('FairOrder', () => {
  it('interleaves keys by weight, keeping each key in its own order', () => {
    const order = new FairOrder();
    const candidates = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b1', 'b2', 'b3'];
    const weights: Record<string, number> = { a: 2, b: 1 };
    expect(order.order(candidates, keyOf, (k) => weights[k]!, noRoom)).toEqual([
      'a1',
      'b1',
      'a2',
      'a3',
      'b2',
      'a4',
      'a5',
      'b3',
      'a6',
    ]);
  });

  it('leaves one key in acquisition order, with unknown keys last', () => {
    expect(new FairOrder().order(['a1', '?x', 'a2'], keyOf, () => 1, noRoom)).toEqual(['a1', 'a2', '?x']);
  });

  it('offers at most the room a cap leaves, and no unknown key while a cap applies', () => {
    const room = (key: string) => (key === 'a' ? 1 : undefined);
    expect(new FairOrder().order(['a1', 'a2', '?x', 'b1', 'b2'], keyOf, () => 1, room, false)).toEqual([
      'a1',
      'b1',
      'b2',
    ]);
  });

  it('remembers what each key was given: the key served less goes first', () => {
    const order = new FairOrder();
    order.taken('b', 1);
    for (let i = 0; i < 3; i++) order.taken('a', 1);
    expect(order.order(['a1', 'b1', 'b2', 'b3'], keyOf, () => 1, noRoom)).toEqual(['b1', 'b2', 'b3', 'a1']);
  });
});

describe('share keys', () => {
  it('keys by collection, else profile; or by what the policy names', () => {
    expect(shareKeyOf({}, { collection: 'ucb', profile: 'p' })).toBe('ucb');
    expect(shareKeyOf({}, { profile: 'p' })).toBe('p');
    expect(shareKeyOf({ key: 'submitter' }, { collection: 'ucb', submitter: 'jane' })).toBe('jane');
    expect(shareKeyOf({}, {})).toBe('(none)');
    expect(sharesPolicySchema.safeParse({ weights: { a: 0 } }).success).toBe(false);
    expect(sharesPolicySchema.safeParse({ key: 'campus' }).success).toBe(false);
  });
});
