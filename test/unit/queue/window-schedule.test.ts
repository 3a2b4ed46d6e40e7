import { describe, expect, it } from 'vitest';
import { decodeWindowHold } from '../../../src/queue/windows/holds.js';
import {
  activeOccurrence,
  nextBoundary,
  nextOccurrence,
  occurrenceAt,
  occurrenceToSkip,
  windowState,
} from '../../../src/queue/windows/schedule.js';
import { inputNode, nodeProblems, type WindowInput } from '../../../src/queue/windows/store.js';
import { toNode, toWindow, type MaintenanceWindow } from '../../../src/queue/windows/window.js';

const H = 3_600_000;
const at = (iso: string): Date => new Date(iso);
const iso = (date: Date | undefined): string | undefined => date?.toISOString();

function window(fields: Partial<MaintenanceWindow> = {}): MaintenanceWindow {
  return { cron: '0 2 * * *', durationMs: 2 * H, timezone: 'UTC', target: { queue: 'ingest' }, ...fields };
}

function problems(input: Partial<WindowInput>, now = at('2026-01-15T00:00:00Z')) {
  const full: WindowInput = {
    cron: '0 2 * * 0',
    duration: '2h',
    timezone: 'America/Los_Angeles',
    target: { queue: 'ingest' },
    ...input,
  };
  return nodeProblems(inputNode(full), now);
}

describe('maintenance window schedule', () => {
  it('is in force from its start (included) for its duration (end excluded)', () => {
    const w = window();
    expect(occurrenceAt(w, at('2026-05-01T01:59:59.999Z'))).toBeUndefined();
    expect(iso(occurrenceAt(w, at('2026-05-01T02:00:00Z'))?.start)).toBe('2026-05-01T02:00:00.000Z');
    expect(iso(activeOccurrence(w, at('2026-05-01T03:59:59.999Z'))?.end)).toBe('2026-05-01T04:00:00.000Z');
    expect(activeOccurrence(w, at('2026-05-01T04:00:00Z'))).toBeUndefined();
  });

  it('reads the cron in the time zone given: a weekly window in Los Angeles, and the same cron in Berlin', () => {
    const la = window({ cron: '0 2 * * 0', timezone: 'America/Los_Angeles' });
    // Sunday 22 November 2026, 02:00 PST (UTC-8).
    expect(iso(nextOccurrence(la, at('2026-11-20T00:00:00Z'))?.start)).toBe('2026-11-22T10:00:00.000Z');
    const berlin = window({ cron: '0 2 * * 0', timezone: 'Europe/Berlin' });
    expect(iso(nextOccurrence(berlin, at('2026-11-20T00:00:00Z'))?.start)).toBe('2026-11-22T01:00:00.000Z');
  });

  it('follows daylight-saving changes: a 02:00 start on the day clocks go forward runs at 03:00 local time', () => {
    const w = window({ cron: '0 2 * * *', timezone: 'America/Los_Angeles', durationMs: H });
    // 8 March 2026: 02:00 PST does not exist; the window starts at 03:00 PDT (10:00Z), the next day at 02:00 PDT (09:00Z).
    expect(iso(nextOccurrence(w, at('2026-03-08T05:00:00Z'))?.start)).toBe('2026-03-08T10:00:00.000Z');
    expect(activeOccurrence(w, at('2026-03-08T09:30:00Z'))).toBeUndefined();
    expect(iso(nextOccurrence(w, at('2026-03-08T12:00:00Z'))?.start)).toBe('2026-03-09T09:00:00.000Z');
    // The day before the change, 02:00 PST is 10:00Z.
    expect(iso(activeOccurrence(w, at('2026-03-07T10:30:00Z'))?.start)).toBe('2026-03-07T10:00:00.000Z');
  });

  it('starts once on the day clocks go back, though its local time happens twice', () => {
    const w = window({ cron: '30 1 * * *', timezone: 'America/Los_Angeles', durationMs: H });
    // 1 November 2026: 01:30 PDT (08:30Z), then 01:30 PST (09:30Z) again; only the first is a start.
    expect(iso(activeOccurrence(w, at('2026-11-01T09:15:00Z'))?.start)).toBe('2026-11-01T08:30:00.000Z');
    expect(activeOccurrence(w, at('2026-11-01T09:45:00Z'))).toBeUndefined();
    expect(iso(nextOccurrence(w, at('2026-11-01T09:45:00Z'))?.start)).toBe('2026-11-02T09:30:00.000Z');
  });

  it('skips the occurrence named in skip: not in force, and the next one is the one after it', () => {
    const w = window({ skip: '2026-05-01T02:00:00.000Z' });
    const now = at('2026-05-01T02:30:00Z');
    expect(activeOccurrence(w, now)).toBeUndefined();
    expect(windowState(w, now)).toMatchObject({ active: false, current: { skipped: true } });
    expect(iso(nextOccurrence(w, at('2026-05-01T00:00:00Z'))?.start)).toBe('2026-05-02T02:00:00.000Z');
    expect(iso(nextBoundary(w, at('2026-05-01T00:00:00Z')))).toBe('2026-05-02T02:00:00.000Z');
  });

  it('finds the next boundary: the end of the occurrence in force, else the next start', () => {
    const w = window();
    expect(iso(nextBoundary(w, at('2026-05-01T02:30:00Z')))).toBe('2026-05-01T04:00:00.000Z');
    expect(iso(nextBoundary(w, at('2026-05-01T04:00:00Z')))).toBe('2026-05-02T02:00:00.000Z');
  });

  it('skips the occurrence in force, else the next one', () => {
    const w = window();
    expect(iso(occurrenceToSkip(w, at('2026-05-01T03:00:00Z'))?.start)).toBe('2026-05-01T02:00:00.000Z');
    expect(iso(occurrenceToSkip(w, at('2026-05-01T05:00:00Z'))?.start)).toBe('2026-05-02T02:00:00.000Z');
  });

  it('runs to the second with a 6-field cron', () => {
    const w = window({ cron: '*/10 * * * * *', durationMs: 4000 });
    expect(iso(activeOccurrence(w, at('2026-05-01T00:00:13.999Z'))?.start)).toBe('2026-05-01T00:00:10.000Z');
    expect(activeOccurrence(w, at('2026-05-01T00:00:14.000Z'))).toBeUndefined();
  });
});

describe('maintenance window validation', () => {
  it('accepts a well-formed window, its duration as ms or text, stored as the shortest text', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ duration: 7_200_000 })).toEqual([]);
    expect(inputNode({ ...baseInput(), duration: 5_400_000 }).duration).toBe('90m');
    expect(toNode(toWindow(inputNode(baseInput())))).toEqual(inputNode(baseInput()));
  });

  it('names the field of each mistake', () => {
    expect(problems({ cron: 'every sunday' })).toEqual([
      {
        field: 'cron',
        message: expect.stringContaining('"every sunday" is not a cron expression') as string,
      },
    ]);
    expect(problems({ cron: '0 0 2 * * * 2027' })[0]?.field).toBe('cron');
    expect(problems({ cron: '0 0 30 2 *' })).toEqual([
      { field: 'cron', message: '"0 0 30 2 *" never fires' },
    ]);
    expect(problems({ timezone: 'Mars/Olympus' })).toEqual([
      {
        field: 'timezone',
        message: expect.stringContaining('"Mars/Olympus" is not an IANA time zone') as string,
      },
    ]);
    expect(problems({ duration: 0 })).toEqual([{ field: 'duration', message: 'must be longer than 0' }]);
    expect(problems({ duration: '2 fortnights' })[0]?.field).toBe('duration');
    expect(problems({ target: { collection: 'a/b' } })[0]?.field).toBe('target.collection');
    expect(problems({ skip: '2026-01-18T11:00:00.000Z' })).toEqual([
      { field: 'skip', message: '2026-01-18T11:00:00.000Z is not a start of this window' },
    ]);
    expect(problems({ skip: '2026-01-18T10:00:00.000Z' })).toEqual([]);
  });

  it('refuses a duration longer than the time between two starts, daylight-saving changes included', () => {
    expect(problems({ cron: '0 * * * *', duration: '2h' })).toEqual([
      {
        field: 'duration',
        message: expect.stringContaining('2h is longer than the 1h between two starts') as string,
      },
    ]);
    // Daily at 02:00: 24 hours apart in UTC, but 23 on the day Los Angeles moves its clocks forward.
    expect(problems({ cron: '0 2 * * *', duration: '1410m', timezone: 'UTC' })).toEqual([]);
    expect(problems({ cron: '0 2 * * *', duration: '1410m', timezone: 'America/Los_Angeles' })).toEqual([
      { field: 'duration', message: expect.stringContaining('longer than the 23h') as string },
    ]);
  });
});

describe('the data of a hold', () => {
  it("is a window's only when it names one; an operator's empty hold or other data is not", () => {
    const hold = { window: 'w', occurrence: '2026-01-01T00:00:00.000Z', until: '2026-01-01T01:00:00.000Z' };
    expect(decodeWindowHold(Buffer.from(JSON.stringify(hold)))).toEqual(hold);
    expect(decodeWindowHold(undefined)).toBeUndefined();
    expect(decodeWindowHold(Buffer.from(''))).toBeUndefined();
    expect(decodeWindowHold(Buffer.from('paused by ops'))).toBeUndefined();
    expect(decodeWindowHold(Buffer.from('{"window":1}'))).toBeUndefined();
  });
});

function baseInput(): WindowInput {
  return { cron: '0 2 * * 0', duration: '2h', timezone: 'America/Los_Angeles', target: { queue: 'ingest' } };
}
