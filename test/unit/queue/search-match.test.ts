import { describe, expect, it } from 'vitest';
import {
  arkKey,
  compareHits,
  matchEntry,
  splitLocalIds,
  type RankedHit,
  type SearchEntry,
} from '../../../src/views/search/match.js';

const job = (id: string, extra: Partial<SearchEntry> = {}): SearchEntry => ({
  kind: 'job',
  id,
  bid: 'bid0000000001',
  localIds: [],
  ...extra,
});
const batch = (id: string, extra: Partial<SearchEntry> = {}): SearchEntry => ({
  kind: 'batch',
  id,
  localIds: [],
  ...extra,
});

describe('search matching (search-match.ts)', () => {
  it('matches each key kind and says which one matched', () => {
    expect(matchEntry(job('jid0000000007'), 'jid0000000007')).toMatchObject({ match: 'jid', rank: 0 });
    expect(matchEntry(batch('bid0000000002'), 'bid0000000002')).toMatchObject({ match: 'bid' });
    expect(matchEntry(batch('bid0000000002', { uuid: 'u-1' }), 'u-1')).toMatchObject({ match: 'uuid' });
    expect(matchEntry(job('jid1', { ark: 'ark:/13030/m5abc' }), 'ark:/13030/m5abc')).toMatchObject({
      match: 'ark',
      value: 'ark:/13030/m5abc',
    });
    expect(matchEntry(job('jid1', { localIds: ['LOC-1', 'LOC-2'] }), 'LOC-2')).toMatchObject({
      match: 'localId',
      value: 'LOC-2',
    });
    expect(matchEntry(job('jid1', { title: 'The Whale' }), 'the wh')).toMatchObject({
      match: 'title',
      value: 'The Whale',
    });
    expect(matchEntry(job('jid1', { title: 'The Whale' }), 'whale')).toBeUndefined();
    expect(matchEntry(job('jid1', { localIds: ['LOC-1'] }), 'LOC')).toBeUndefined();
  });

  it('treats ark:/, ark: and the bare name of an ARK alike', () => {
    expect(arkKey('ark:/13030/x')).toBe(arkKey('ark:13030/x'));
    expect(matchEntry(job('jid1', { ark: 'ark:/13030/x' }), '13030/x')).toMatchObject({ match: 'ark' });
    expect(matchEntry(job('jid1', { ark: 'ark:/13030/x' }), 'ark:/')).toBeUndefined();
  });

  it("splits Merritt's ;-separated local ids", () => {
    expect(splitLocalIds(['a; b', ['ignored'], 'b', undefined, 'c'])).toEqual(['a', 'b', 'c']);
  });

  it('ranks exact ids, then ARK, local id, equal title, title prefix; batches first, then newest', () => {
    const query = 'Q';
    const hits = [
      matchEntry(job('jid0000000001', { title: 'Q and more' }), query),
      matchEntry(job('jid0000000002', { title: 'q' }), query),
      matchEntry(job('jid0000000003', { localIds: ['Q'] }), query),
      matchEntry(job('jid0000000004', { ark: 'ark:/1/Q', title: 'Q' }), 'ark:/1/Q'),
      matchEntry(batch('bid0000000005', { title: 'Q' }), query),
      matchEntry(job('jid0000000009', { title: 'Q' }), query),
      matchEntry(batch('bid0000000006', { uuid: 'Q' }), query),
    ].filter((hit): hit is RankedHit => hit !== undefined);
    expect(hits.sort(compareHits).map((h) => `${h.id}:${h.match}`)).toEqual([
      'bid0000000006:uuid',
      'jid0000000004:ark',
      'jid0000000003:localId',
      'bid0000000005:title',
      'jid0000000009:title',
      'jid0000000002:title',
      'jid0000000001:title',
    ]);
  });
});
