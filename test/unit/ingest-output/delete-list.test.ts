import { describe, expect, it } from 'vitest';
import { deleteField, storeNodeDeletes } from '../../../src/steps/formats/delete-list.js';
import { storeNode } from '../../../src/steps/services/handoff/handoff.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { isUpdateApplied, planUpdate } from '../../../src/steps/services/storage/update.js';

const entry = (path: string, value = 'aa', size = 2) => ({
  path,
  size,
  digest: { algorithm: 'sha256' as const, value },
});

describe('the delete list of an update (merritt-protocols.md §1 (a))', () => {
  // HandlerTransfer.processDeleteFile: BufferedReader lines, the empty ones skipped (blanks
  // kept), "producer/" prepended when missing, each path followed by "\n", nothing merged.
  it("makes the store node's delete exactly as Merritt's ingest writes it", () => {
    expect(deleteField('a.txt\r\n\nproducer/dir/b.txt\rc d.txt\na.txt')).toBe(
      'producer/a.txt\nproducer/dir/b.txt\nproducer/c d.txt\nproducer/a.txt\n',
    );
    expect(deleteField('  x.txt \n')).toBe('producer/  x.txt \n');
    expect(deleteField('')).toBe('');
    expect(deleteField('\n\r\n')).toBe('');
  });

  it('goes into the store node byte for byte, and mrt-store splits it back', () => {
    const node = storeNode(
      'file:///w/system/mrt-manifest.txt',
      { action: 'update', node: 7777, ark: 'ark:/13030/m5x' },
      deleteField('a.txt\nb.txt\n'),
    );
    expect(JSON.stringify(node)).toBe(
      '{"manifest_url":"file:///w/system/mrt-manifest.txt","mode":"update/7777/ark%3A%2F13030%2Fm5x",' +
        '"delete":"producer/a.txt\\nproducer/b.txt\\n"}',
    );
    expect(storeNodeDeletes(node.delete)).toEqual(['producer/a.txt', 'producer/b.txt']);
    expect(storeNodeDeletes('producer/a.txt\r\nproducer/b.txt\n')).toEqual([
      'producer/a.txt',
      'producer/b.txt',
    ]);
    expect(storeNodeDeletes('')).toEqual([]);
  });
});

describe("an update's next version (mrt-store's VersionMap merge)", () => {
  const latest = [entry('producer/a'), entry('producer/b'), entry('system/mrt-erc.txt')];

  it('keeps what is neither deleted nor replaced, and adds the update', () => {
    const plan = planUpdate(
      'ark:/1/x',
      1,
      latest,
      [entry('producer/b', 'bb'), entry('producer/c')],
      ['producer/a'],
    );
    expect(plan.carried.map((e) => e.path)).toEqual(['system/mrt-erc.txt']);
    expect(plan.added.map((e) => e.path)).toEqual(['producer/b', 'producer/c']);
  });

  it('refuses to delete a file the latest version does not hold', () => {
    let caught: unknown;
    try {
      planUpdate('ark:/1/x', 3, latest, [], ['producer/zz']);
    } catch (err) {
      caught = err;
    }
    expect(isOutputError(caught, 'STORAGE_FAILED')).toBe(true);
    expect((caught as Error).message).toMatch(
      /deletes producer\/zz, which version 3 \(3 files\) does not hold/,
    );
  });

  it('counts as applied only when every update file is there as given and no deleted file is', () => {
    const after = [entry('producer/b', 'bb'), entry('producer/c'), entry('system/mrt-erc.txt')];
    expect(isUpdateApplied(after, [entry('producer/b', 'bb')], ['producer/a'])).toBe(true);
    expect(isUpdateApplied(latest, [entry('producer/b', 'bb')], ['producer/a'])).toBe(false);
    expect(isUpdateApplied(after, [entry('producer/b', 'cc')], [])).toBe(false);
    expect(isUpdateApplied(after, [], ['producer/c'])).toBe(false);
  });
});
