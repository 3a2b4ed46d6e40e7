import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalFileName, sweepJournal } from '../../../src/journal/files.js';
import { readJournal } from '../../../src/journal/reader.js';
import { JournalWriter } from '../../../src/journal/writer.js';

const log = pino({ level: 'silent' });

describe('journal files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a file per writer and day, starts a new part when one is full, and reads them merged in time order', async () => {
    let now = new Date('2026-11-27T23:59:59.000Z');
    const a = new JournalWriter({
      dir,
      kind: 'audit',
      writer: 'host-a',
      sync: true,
      maxBytes: 200,
      log,
      now: () => now,
    });
    const b = new JournalWriter({ dir, kind: 'audit', writer: 'host-b', sync: true, log, now: () => now });
    a.write({ at: '2026-11-27T23:59:59.000Z', n: 1 });
    b.write({ at: '2026-11-27T23:59:59.500Z', n: 2 });
    now = new Date('2026-11-28T00:00:01.000Z');
    // The day changes only when the writer asks the clock: a new file at the first line after midnight.
    (a as unknown as { nextDayAt: number }).nextDayAt = 0;
    for (let n = 3; n < 10; n += 1) a.write({ at: `2026-11-28T00:00:0${n}.000Z`, n, pad: 'x'.repeat(40) });
    await Promise.all([a.close(), b.close()]);
    const names = readdirSync(dir).sort();
    expect(names).toContain(journalFileName('audit', '2026-11-27', 'host-a', 0));
    expect(names).toContain(journalFileName('audit', '2026-11-27', 'host-b', 0));
    expect(names).toContain(journalFileName('audit', '2026-11-28', 'host-a', 0));
    expect(names).toContain(journalFileName('audit', '2026-11-28', 'host-a', 1)); // 200 bytes are 2-3 lines
    const all = await readJournal<{ at: string; n: number }>([dir], 'audit');
    expect(all.entries.map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Every line is whole and each file is within its limit, but for a line larger than it.
    for (const name of names)
      for (const line of readFileSync(join(dir, name), 'utf8').trim().split('\n')) JSON.parse(line);
  });

  it('buffered: lines written before a new day or part are in the file before it, and all are written by close', async () => {
    let now = new Date('2026-11-27T23:59:59.000Z');
    const writer = new JournalWriter({
      dir,
      kind: 'history',
      writer: 'e1',
      sync: false,
      maxBytes: 200,
      log,
      now: () => now,
    });
    writer.write({ at: '2026-11-27T23:59:59.000Z', n: 0 });
    now = new Date('2026-11-28T00:00:01.000Z');
    (writer as unknown as { nextDayAt: number }).nextDayAt = 0; // the day is asked at the next line
    for (let n = 1; n <= 9; n += 1)
      writer.write({ at: `2026-11-28T00:00:0${n}.000Z`, n, pad: 'x'.repeat(40) });
    await new Promise((resolve) => setImmediate(resolve));
    writer.write({ at: '2026-11-28T00:00:10.000Z', n: 10 });
    await writer.close();
    const names = readdirSync(dir).sort();
    expect(readFileSync(join(dir, journalFileName('history', '2026-11-27', 'e1', 0)), 'utf8')).toBe(
      '{"at":"2026-11-27T23:59:59.000Z","n":0}\n',
    );
    expect(names.length).toBeGreaterThanOrEqual(5); // 200 bytes are 2-3 lines of these
    const all = await readJournal<{ at: string; n: number }>([dir], 'history');
    expect(all.entries.map((e) => e.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const name of names) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(200);
      for (const line of text.trim().split('\n')) JSON.parse(line);
    }
  });

  it('reads only the days asked for, the newest within a limit, and passes over a cut line', async () => {
    const lines = (day: string, count: number): string =>
      Array.from({ length: count }, (_, i) =>
        JSON.stringify({ at: `${day}T10:00:${String(i).padStart(2, '0')}.000Z`, item: `jid${i % 3}` }),
      ).join('\n') + '\n';
    writeFileSync(join(dir, journalFileName('history', '2026-11-01', 'e1', 0)), lines('2026-11-01', 30));
    writeFileSync(join(dir, journalFileName('history', '2026-11-02', 'e1', 0)), lines('2026-11-02', 30));
    appendFileSync(join(dir, journalFileName('history', '2026-11-02', 'e1', 0)), '{"at":"2026-11-02T11:00'); // a crash mid-line
    writeFileSync(join(dir, 'notes.txt'), 'not a journal file\n');

    const day2 = await readJournal<{ at: string; item: string }>([dir], 'history', {
      since: new Date('2026-11-02T00:00:00Z'),
    });
    expect(day2.files).toBe(1);
    expect(day2.entries).toHaveLength(30);
    expect(day2.unreadable).toBe(1);

    const one = await readJournal<{ at: string; item: string }>([dir], 'history', {
      contains: '"jid1"',
      where: (e) => e.item === 'jid1',
      limit: 5,
    });
    expect(one.entries).toHaveLength(5);
    expect(one.truncated).toBe(true);
    expect(one.entries.every((e) => e.item === 'jid1')).toBe(true);
    expect(one.entries.at(-1)!.at).toBe('2026-11-02T10:00:28.000Z'); // the newest kept

    expect(await readJournal([join(dir, 'absent')], 'history')).toMatchObject({ entries: [], files: 0 });
  });

  it('removes the days past the retention, and nothing else', async () => {
    for (const day of ['2026-08-01', '2026-11-20', '2026-11-28'])
      writeFileSync(join(dir, journalFileName('audit', day, 'e1', 0)), '');
    writeFileSync(join(dir, journalFileName('history', '2026-08-01', 'e1', 0)), '');
    const removed = await sweepJournal(dir, 'audit', 30 * 86_400_000, new Date('2026-11-28T12:00:00Z'));
    expect(removed).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(
      [
        journalFileName('audit', '2026-11-20', 'e1', 0),
        journalFileName('audit', '2026-11-28', 'e1', 0),
        journalFileName('history', '2026-08-01', 'e1', 0),
      ].sort(),
    );
  });

  it('logs a line it cannot write instead of throwing', async () => {
    writeFileSync(join(dir, 'blocked'), ''); // a file where the folder should be
    const errors: unknown[] = [];
    const writer = new JournalWriter({
      dir: join(dir, 'blocked', 'audit'),
      kind: 'audit',
      writer: 'e1',
      sync: true,
      log: pino({ level: 'error' }, { write: (line: string) => errors.push(line) }),
    });
    expect(() => writer.write({ at: new Date().toISOString() })).not.toThrow();
    await writer.close();
    expect(errors.length).toBeGreaterThan(0);
  });
});
