import type { Ledger, LedgerEntry } from '../engine/ledger.js';
import type { JournalWriter } from '../journal/writer.js';
import type { HistoryEntry } from './entry.js';

/** Starts kept for the duration of steps; one per item and status version at work in this process. */
interface Started {
  /** Date.now() and performance.now() at the start: formatted only when the step's line is written. */
  wall: number;
  t: number;
}

/**
 * The engine's ledger as the items' histories (issue 35): every step's end, with its start and
 * duration, written to this process's history journal. A step's start is kept in memory until it
 * ends (a process that dies mid-step leaves its attempt to the job's `attempts` node, which the
 * next attempt's line carries as `earlierAttempts`).
 */
export function historyLedger(writer: Pick<JournalWriter, 'write'>, engine: string): Ledger {
  const starts = new Map<string, Started>();
  const keyOf = (entry: LedgerEntry): string => `${entry.item}@${entry.version ?? ''}`;
  const iso = isoFormatter();
  return {
    record(entry) {
      if (entry.kind === 'start') {
        starts.set(keyOf(entry), { wall: Date.now(), t: performance.now() });
        return;
      }
      const key = keyOf(entry);
      const start = starts.get(key);
      starts.delete(key);
      // Properties assigned in the line's order, each only when present (no object spread a line).
      const line = {
        at: iso(Date.now()),
        item: entry.item,
        state: entry.state,
        outcome: entry.kind === 'commit' ? 'committed' : 'discarded',
      } as HistoryEntry;
      if (entry.to !== undefined) line.to = entry.to;
      if (entry.event !== undefined) line.event = entry.event;
      if (start) {
        line.started = iso(start.wall);
        line.ms = Math.round(performance.now() - start.t);
      }
      line.engine = engine;
      if (entry.reason !== undefined) line.reason = entry.reason;
      if (entry.message !== undefined) line.message = entry.message;
      if (entry.detail !== undefined) line.detail = entry.detail;
      writer.write(line);
    },
  };
}

/**
 * Date.now() values as ISO 8601, the last two remembered: an engine ends many steps in one
 * millisecond, and formatting a date (about a microsecond, two a line) was most of what building
 * a line cost.
 */
function isoFormatter(): (ms: number) => string {
  let lastMs = Number.NaN;
  let last = '';
  let beforeMs = Number.NaN;
  let before = '';
  return (ms) => {
    if (ms === lastMs) return last;
    if (ms === beforeMs) return before;
    beforeMs = lastMs;
    before = last;
    lastMs = ms;
    last = new Date(ms).toISOString();
    return last;
  };
}
