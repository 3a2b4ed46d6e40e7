import { describe, expect, it } from 'vitest';
import { LockedElsewhere } from '../../../src/engine/locked-elsewhere.js';

/** A registry whose lock watches the test fires by hand. */
function registry() {
  const watches = new Map<string, (() => void)[]>();
  const locks = new LockedElsewhere((id, gone) => watches.set(id, [...(watches.get(id) ?? []), gone]));
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
});
