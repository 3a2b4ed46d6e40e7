import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileLedger } from '../../../src/engine/ledger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function lines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('fileLedger', () => {
  it('appends whole lines from several writers to one file, a start in the file when record returns', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.jsonl');
    const a = fileLedger(path, 1);
    const b = fileLedger(path, 2);
    for (let i = 0; i < 50; i++) {
      a.record({ kind: 'start', item: `jid${i}`, state: 'downloading', version: i });
      // Read back at once: nothing is buffered in the process.
      expect(lines(path).at(-1)).toMatchObject({ pid: 1, item: `jid${i}` });
      b.record({ kind: 'commit', item: `jid${i}`, state: 'downloading', version: i, to: 'processing' });
    }
    a.close();
    b.close();
    const written = lines(path);
    expect(written).toHaveLength(100);
    expect(written.filter((l) => l['pid'] === 1).map((l) => l['item'])).toEqual(
      Array.from({ length: 50 }, (_, i) => `jid${i}`),
    );
    expect(written.every((l) => typeof l['t'] === 'number')).toBe(true);
  });

  it('keeps recording after close (an entry settled late, after the engine stopped)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.jsonl');
    const ledger = fileLedger(path, 7);
    ledger.record({ kind: 'start', item: 'jid1', state: 'estimating' });
    ledger.close();
    ledger.record({ kind: 'discard', item: 'jid1', state: 'estimating', reason: 'aborted' });
    ledger.close();
    expect(lines(path).map((l) => l['kind'])).toEqual(['start', 'discard']);
  });

  it('writes a commit by the end of the microtask checkpoint, or with the next start, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.jsonl');
    const ledger = fileLedger(path, 3);
    ledger.record({ kind: 'start', item: 'jid1', state: 'estimating', version: 1 });
    ledger.record({ kind: 'commit', item: 'jid1', state: 'estimating', version: 1, to: 'provisioning' });
    ledger.record({ kind: 'start', item: 'jid1', state: 'provisioning', version: 2 });
    // The start took the commit before it along: both are in the file, in the order recorded.
    expect(lines(path).map((l) => [l['kind'], l['state']])).toEqual([
      ['start', 'estimating'],
      ['commit', 'estimating'],
      ['start', 'provisioning'],
    ]);
    ledger.record({ kind: 'commit', item: 'jid1', state: 'provisioning', version: 2, to: 'downloading' });
    ledger.record({ kind: 'discard', item: 'jid2', state: 'estimating', reason: 'aborted' });
    await Promise.resolve();
    expect(lines(path).map((l) => l['kind'])).toEqual(['start', 'commit', 'start', 'commit', 'discard']);
    ledger.record({ kind: 'commit', item: 'jid3', state: 'notify', version: 9, to: 'completed' });
    ledger.close(); // close writes what is pending
    expect(lines(path).at(-1)).toMatchObject({ item: 'jid3', kind: 'commit' });
  });
});
