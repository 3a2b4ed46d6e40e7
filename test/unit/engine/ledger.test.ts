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
  it('appends whole lines from several writers to one file, each entry in the file when record returns', () => {
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
});
