import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  clampPriority,
  FirstRefs,
  parseRefName,
  refName,
  refRank,
  sortRefs,
} from '../../../src/queue/tree/paths.js';

describe('job state ref names', () => {
  it('parses any integer priority prefix, as other tools write them', () => {
    expect(parseRefName('05-jid0000000001')).toEqual({ priority: 5, jid: 'jid0000000001' });
    expect(parseRefName('100-jid0000000002')).toEqual({ priority: 100, jid: 'jid0000000002' });
    expect(parseRefName('-1-jid0000000003')).toEqual({ priority: -1, jid: 'jid0000000003' });
    expect(parseRefName('5-jid0000000004')).toEqual({ priority: 5, jid: 'jid0000000004' });
    for (const name of ['jid0000000001', '05-bid0000000001', 'x5-jid1', '05-jid', '05_jid1', '--1-jid1'])
      expect(parseRefName(name)).toBeUndefined();
  });

  it('writes two digits, clamped to 00-99', () => {
    expect([refName(100, 'jid1'), refName(-1, 'jid1'), refName(5, 'jid1'), refName(7.9, 'jid1')]).toEqual([
      '99-jid1',
      '00-jid1',
      '05-jid1',
      '07-jid1',
    ]);
    expect(clampPriority(Number.NaN)).toBe(5);
  });

  it('sorts odd prefixes by their clamped priority, then job id; names that are not refs last', () => {
    const names = ['100-jid3', '10-jid9', '5-jid8', '05-jid2', '-1-jid7', 'stray', '00-jid4', '99-jid1'];
    expect(sortRefs(names)).toEqual([
      '00-jid4',
      '-1-jid7',
      '05-jid2',
      '5-jid8',
      '10-jid9',
      '99-jid1',
      '100-jid3',
      'stray',
    ]);
    expect(sortRefs(['07-jid2', '05-jid9', '05-jid1'])).toEqual(['05-jid1', '05-jid9', '07-jid2']);
    expect([refRank('100-jid3'), refRank('-1-jid7'), refRank('5-jid8')]).toEqual(['99-', '00-', '05-']);
  });
});

describe('the first refs of a large folder (FirstRefs)', () => {
  /** The refs FirstRefs keeps of `names`, offered one at a time. */
  const firstOf = (names: readonly string[], count: number): string[] => {
    const first = new FirstRefs(count);
    for (const name of names) first.offer(name);
    expect(first.size).toBe(names.length);
    return first.take();
  };

  const refArbitrary = fc.oneof(
    fc
      .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 9_999_999 }))
      .map(([p, n]) => refName(p, `jid${String(n).padStart(10, '0')}`)),
    fc.constantFrom(
      '100-jid0000000001',
      '-1-jid0000000002',
      '5-jid0000000003',
      'lock',
      'not-a-ref',
      '05-jid0000000003',
      '05-jidx',
      '05-jid0000000005x',
    ),
  );

  it('gives exactly the first `count` of sortRefs’ order, for any names and count', () => {
    fc.assert(
      fc.property(
        fc.array(refArbitrary, { maxLength: 300 }),
        fc.integer({ min: 1, max: 320 }),
        (names, count) => {
          expect(firstOf(names, count)).toEqual(sortRefs(names).slice(0, count));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps duplicates and ties as the sort does, on a folder far larger than the count', () => {
    const names = Array.from({ length: 5000 }, (_, i) =>
      refName(i % 7, `jid${String((i * 7919) % 4999).padStart(10, '0')}`),
    );
    expect(firstOf(names, 100)).toEqual(sortRefs(names).slice(0, 100));
    expect(firstOf(names, 5000)).toEqual(sortRefs(names));
  });
});
