import { describe, expect, it, vi } from 'vitest';
import { WaitingItems } from '../../../src/engine/waiting-items.js';

/** A registry whose lock watches the test fires by hand. */
function registry() {
  const watches = new Map<string, (() => void)[]>();
  const locks = new WaitingItems((id, gone) => watches.set(id, [...(watches.get(id) ?? []), gone]));
  const release = (id: string) => {
    const fired = watches.get(id) ?? [];
    watches.delete(id);
    for (const gone of fired) gone();
  };
  return { locks, watches, release };
}

describe('items locked elsewhere', () => {
  it('watch each lock once however many consumers meet the item, and poke each of them when it goes', () => {
    const { locks, watches, release } = registry();
    const poked: string[] = [];
    locks.add('jid1', () => poked.push('estimating'));
    locks.add('jid1', () => poked.push('downloading'));
    locks.add('jid1', () => poked.push('downloading')); // the same consumer meets it again
    expect(watches.get('jid1')).toHaveLength(1);
    expect(locks.has('jid1')).toBe(true);
    expect(locks.has('jid2')).toBe(false);
    release('jid1');
    expect(locks.has('jid1')).toBe(false);
    expect(poked.sort()).toEqual(['downloading', 'downloading', 'estimating']);
  });

  it('are forgotten at once, with every waiting consumer poked once (a new session, a sweep)', () => {
    const { locks, release } = registry();
    let pokes = 0;
    const poke = () => pokes++;
    locks.add('jid1', poke);
    locks.add('jid2', poke);
    locks.forget();
    expect(pokes).toBe(1);
    expect(locks.has('jid1') || locks.has('jid2')).toBe(false);
    // A watch of before the forget that fires late pokes nobody twice.
    locks.add('jid1', poke);
    release('jid1');
    expect(locks.has('jid1')).toBe(false);
    expect(pokes).toBe(2);
  });

  it('keep one watch per item and session: a sweep looks again without arming another', () => {
    const { locks, watches, release } = registry();
    let pokes = 0;
    locks.add('jid1', () => pokes++);
    locks.forget(); // a sweep
    locks.add('jid1', () => pokes++);
    expect(watches.get('jid1')).toHaveLength(1);
    locks.forget(true); // a new session: the old watch is gone with it
    locks.add('jid1', () => pokes++);
    expect(watches.get('jid1')).toHaveLength(2);
    release('jid1');
    expect(pokes).toBe(3);
  });
});

describe('items that could not be used', () => {
  it('are looked at once more when their watch is armed, which stays armed', () => {
    const armedCalls: (() => void)[] = [];
    let watchesArmed = 0;
    const items = new WaitingItems((_id, _changed, armed) => {
      watchesArmed++;
      armedCalls.push(armed);
    });
    let pokes = 0;
    items.add('qid1', () => pokes++);
    armedCalls[0]!();
    expect([pokes, items.has('qid1')]).toEqual([1, false]);
    // Still incomplete on that look: waiting again, on the watch already armed.
    items.add('qid1', () => pokes++);
    expect([watchesArmed, items.has('qid1')]).toEqual([1, true]);
  });
});

describe('items that could not be used, under backoff', () => {
  /** A registry with a backoff of 5 s doubling to 20 s, whose watches the test fires by hand. */
  function unusable() {
    const watches = new Map<string, () => void>();
    const items = new WaitingItems((id, changed) => watches.set(id, changed), {
      firstMs: 5000,
      maxMs: 20_000,
    });
    return { items, watches };
  }

  it('are looked at again after 5, 10, 20, 20 s while nothing changes, and not at a sweep', () => {
    vi.useFakeTimers();
    try {
      const { items } = unusable();
      let looks = 0;
      const meet = () =>
        items.add('jid1', () => {
          looks++;
          meet(); // looked at, still unusable
        });
      meet();
      const delays: (number | undefined)[] = [items.delayOf('jid1')];
      for (const ms of [5000, 10_000, 20_000, 20_000]) {
        items.forget(); // a sweep: left to its timer
        vi.advanceTimersByTime(ms - 1);
        expect(looks).toBe(delays.length - 1);
        vi.advanceTimersByTime(1);
        expect(looks).toBe(delays.length);
        delays.push(items.delayOf('jid1'));
      }
      expect(delays).toEqual([5000, 10_000, 20_000, 20_000, 20_000]);
      items.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('are looked at at once when their nodes change, and start again from the first delay', () => {
    vi.useFakeTimers();
    try {
      const { items, watches } = unusable();
      let looks = 0;
      const meet = () => items.add('jid1', () => looks++);
      meet();
      vi.advanceTimersByTime(5000);
      meet();
      expect(items.delayOf('jid1')).toBe(10_000);
      watches.get('jid1')!();
      expect(looks).toBe(2);
      meet();
      expect(items.delayOf('jid1')).toBe(5000);
      items.clear('jid1'); // used at last
      expect(items.delayOf('jid1')).toBeUndefined();
      items.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('are all looked at again with a new session (its watches are new)', () => {
    const { items } = unusable();
    let looks = 0;
    items.add('jid1', () => looks++);
    items.forget(true);
    expect(looks).toBe(1);
    expect(items.has('jid1')).toBe(false);
    items.stop();
  });
});
