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
  /** The event's message (why a job failed or waits to retry). */
  message?: string;
  /** What the step noted for the item's history (files verified, identifiers, a failure's class). */
  detail?: Readonly<Record<string, unknown>>;
}

/** Where the engine records every step start and commit (the audit trail crash tests check). */
export interface Ledger {
  record(entry: LedgerEntry): void;
}

export const noLedger: Ledger = { record: () => {} };

/**
 * A JSON-lines ledger in one file that several processes may share. A step's start is in the file
 * (the kernel's page cache) before `record` returns, so before the step can do anything: a
 * process killed with SIGKILL loses no start, and a step run again is always seen. A commit or a
 * discard is written with the next start or at the end of the current microtask checkpoint,
 * whichever comes first (in a job handed from one step to the next, its commit and the next
 * start go in one write): it is already on ZooKeeper by then, and its line always came a moment
 * after it. The file is opened once, in append mode, and each write holds whole lines, so the
 * processes sharing it interleave lines, never parts of lines.
 */
export function fileLedger(path: string, pid = process.pid): Ledger & { close(): void } {
  let fd: number | undefined;
  let pending = '';
  const flush = (): void => {
    if (pending === '') return;
    fd ??= openSync(path, 'a');
    const lines = pending;
    pending = '';
    writeSync(fd, lines);
  };
  return {
    record(entry) {
      const wasEmpty = pending === '';
      pending += JSON.stringify({ t: Date.now(), pid, ...entry }) + '\n';
      if (entry.kind === 'start') flush();
      else if (wasEmpty) queueMicrotask(flush);
    },
    close() {
      flush();
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Every entry to each of `ledgers` (the crash tests' file and the histories' journal). */
export function teeLedger(...ledgers: Ledger[]): Ledger {
  return {
    record(entry) {
      for (const ledger of ledgers) ledger.record(entry);
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
