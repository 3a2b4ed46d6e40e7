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
  return {
    record(entry) {
      if (entry.kind === 'start') {
        starts.set(keyOf(entry), { wall: Date.now(), t: performance.now() });
        return;
      }
      const key = keyOf(entry);
      const start = starts.get(key);
      starts.delete(key);
      const line: HistoryEntry = {
        at: new Date().toISOString(),
        item: entry.item,
        state: entry.state,
        outcome: entry.kind === 'commit' ? 'committed' : 'discarded',
        ...(entry.to !== undefined ? { to: entry.to } : {}),
        ...(entry.event !== undefined ? { event: entry.event } : {}),
        ...(start
          ? { started: new Date(start.wall).toISOString(), ms: Math.round(performance.now() - start.t) }
          : {}),
        engine,
        ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
        ...(entry.message !== undefined ? { message: entry.message } : {}),
        ...(entry.detail !== undefined ? { detail: entry.detail } : {}),
      };
      writer.write(line);
    },
  };
}
