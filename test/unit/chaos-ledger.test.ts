import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLedger } from '../support/engine-process.js';
import { checkLedger, type LedgerLine } from '../support/chaos/ledger-check.js';

const line = (t: number, kind: LedgerLine['kind'], item: string, version: number, pid = 1): LedgerLine => ({
  t,
  pid,
  kind,
  item,
  version,
  state: 'estimating',
  event: kind === 'commit' ? 'estimate.done' : undefined,
});

describe('the chaos ledger check', () => {
  it('accepts a step re-run whose earlier run never committed', () => {
    const figures = checkLedger([
      line(1, 'start', 'jid1', 4, 1),
      line(2, 'start', 'jid1', 4, 2), // process 1 was killed
      line(3, 'commit', 'jid1', 4, 2),
      line(4, 'start', 'jid1', 5, 2),
      line(5, 'commit', 'jid1', 5, 2),
    ]);
    expect(figures).toMatchObject({
      starts: 3,
      commits: 2,
      stepsRerun: 1,
      duplicates: [],
      runsAfterCommit: [],
    });
  });

  it('reports a transition committed twice from one status version', () => {
    const figures = checkLedger([
      line(1, 'start', 'jid1', 4),
      line(2, 'commit', 'jid1', 4),
      line(3, 'commit', 'jid1', 4, 2),
    ]);
    expect(figures.duplicates).toEqual(['jid1@4 (estimating estimate.done)']);
  });

  it('reports a step started again after its version was committed', () => {
    const figures = checkLedger([
      line(1, 'start', 'jid1', 4),
      line(2, 'commit', 'jid1', 4),
      line(3, 'start', 'jid1', 4, 2),
    ]);
    expect(figures.runsAfterCommit).toEqual([
      'jid1@4 (estimating): pid 2 started it 1 ms after pid 1 committed it',
    ]);
  });

  it('counts commits it cannot check', () => {
    const { version: _omit, ...old } = line(1, 'commit', 'jid1', 1);
    expect(checkLedger([old]).unversioned).toBe(1);
  });

  it('reads complete lines only: a line an engine is writing is left for the next read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    try {
      const file = join(dir, 'ledger.jsonl');
      const first = JSON.stringify(line(1, 'start', 'jid1', 4));
      writeFileSync(file, `${first}\n{"t":2,"pid":1,"ki`);
      expect(readLedger(file)).toEqual([JSON.parse(first)]);
      writeFileSync(file, `${first}\n`);
      expect(readLedger(file)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
