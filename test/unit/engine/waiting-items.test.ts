import { describe, expect, it } from 'vitest';
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
