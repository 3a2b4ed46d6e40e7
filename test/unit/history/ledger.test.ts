import { describe, expect, it } from 'vitest';
import { historyLedger } from '../../../src/history/ledger.js';

describe('history ledger', () => {
  const recorded = () => {
    const lines: object[] = [];
    return { lines, ledger: historyLedger({ write: (line) => lines.push(line) }, 'e1') };
  };

  it("writes a step's end with its start and duration, its fields in the line's order", () => {
    const { lines, ledger } = recorded();
    ledger.record({ kind: 'start', item: 'jid1', state: 'Pending', version: 3 });
    ledger.record({ kind: 'start', item: 'jid2', state: 'Pending', version: 0 });
    ledger.record({
      kind: 'commit',
      item: 'jid1',
      state: 'Pending',
      version: 3,
      event: 'estimate.done',
      to: 'Estimating',
      detail: { files: 2 },
    });
    ledger.record({
      kind: 'discard',
      item: 'jid2',
      state: 'Pending',
      version: 0,
      reason: 'LOCK_LOST',
      message: 'gone',
    });
    expect(lines).toHaveLength(2);
    const [commit, discard] = lines as Record<string, unknown>[];
    expect(Object.keys(commit!)).toEqual([
      'at',
      'item',
      'state',
      'outcome',
      'to',
      'event',
      'started',
      'ms',
      'engine',
      'detail',
    ]);
    expect(commit).toMatchObject({
      item: 'jid1',
      outcome: 'committed',
      to: 'Estimating',
      engine: 'e1',
      detail: { files: 2 },
    });
    expect(Object.keys(discard!)).toEqual([
      'at',
      'item',
      'state',
      'outcome',
      'started',
      'ms',
      'engine',
      'reason',
      'message',
    ]);
    expect(discard).toMatchObject({ outcome: 'discarded', reason: 'LOCK_LOST', message: 'gone' });
    for (const line of [commit!, discard!]) {
      expect(new Date(line['at'] as string).toISOString()).toBe(line['at']);
      expect(Date.parse(line['started'] as string)).toBeLessThanOrEqual(Date.parse(line['at'] as string));
      expect(line['ms']).toBeGreaterThanOrEqual(0);
    }
  });

  it('writes a commit whose start it did not see without a start, and each line at its own time', async () => {
    const { lines, ledger } = recorded();
    ledger.record({
      kind: 'commit',
      item: 'bid1',
      state: 'Reporting',
      version: 5,
      event: 'report.done',
      to: 'Completed',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    ledger.record({
      kind: 'commit',
      item: 'bid2',
      state: 'Reporting',
      version: 5,
      event: 'report.done',
      to: 'Completed',
    });
    const [first, second] = lines as Record<string, unknown>[];
    expect(first).not.toHaveProperty('started');
    expect(first).not.toHaveProperty('ms');
    expect(Date.parse(second!['at'] as string)).toBeGreaterThan(Date.parse(first!['at'] as string));
  });
});
