import { closeSync, openSync, writeSync } from 'node:fs';
import type { EngineMetrics } from '../telemetry/engine-metrics.js';

/** One line of the ledger: a step started, was committed, or ended without a commit. */
export interface LedgerEntry {
  kind: 'start' | 'commit' | 'discard';
  item: string;
  /** State the step ran in. */
  state: string;
  /**
   * Version of the item's status the step read: a commit moves the status on from exactly this
   * version, so two commits with the same item and version would be a transition done twice.
   */
  version?: number;
  /** The event committed (or that would have been). */
  event?: string;
  to?: string;
  reason?: string;
}

/** Where the engine records every step start and commit (the audit trail crash tests check). */
export interface Ledger {
  record(entry: LedgerEntry): void;
}

export const noLedger: Ledger = { record: () => {} };

/**
 * A JSON-lines ledger appended synchronously, so an entry is in the file (the kernel's page
 * cache) before the engine moves on: a process killed with SIGKILL loses nothing it claimed to
 * have done. The file is opened once, in append mode, so processes sharing it interleave whole
 * lines; opening it for every entry cost three system calls per line.
 */
export function fileLedger(path: string, pid = process.pid): Ledger & { close(): void } {
  let fd: number | undefined;
  return {
    record(entry) {
      fd ??= openSync(path, 'a');
      writeSync(fd, JSON.stringify({ t: Date.now(), pid, ...entry }) + '\n');
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** A ledger that also counts every commit as a transition in `metrics` (kind from the item id). */
export function countingLedger(ledger: Ledger, metrics: Pick<EngineMetrics, 'transition'>): Ledger {
  return {
    record(entry) {
      if (entry.kind === 'commit' && entry.to) {
        const kind = entry.item.startsWith('jid') ? 'job' : entry.item.startsWith('bid') ? 'batch' : 'access';
        metrics.transition(kind, entry.state, entry.to);
      }
      ledger.record(entry);
    },
  };
}
