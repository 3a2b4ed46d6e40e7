import { join } from 'node:path';
import type { Logger } from 'pino';
import { AUDIT_KIND, AuditLog } from '../audit/audit-log.js';
import type { Ledger } from '../engine/ledger.js';
import { JournalWriter } from '../journal/writer.js';
import { HISTORY_KIND } from './entry.js';
import { historyLedger } from './ledger.js';
import { HistoryReader } from './reader.js';

export interface RecordsSettings {
  /** This process's records folder: `audit/` and `history/` are made in it. */
  dir: string;
  /** Other hosts' records folders, read with this one (none when all hosts share one). */
  readDirs: readonly string[];
  historyRetentionMs: number;
  auditRetentionMs: number;
}

/** The audit log and the histories of one process: what it writes and how it reads everyone's. */
export interface Records {
  audit: AuditLog;
  history: HistoryReader;
  /** The engine's ledger as histories (for an engine running in this process). */
  ledger: Ledger;
  close(): Promise<void>;
}

/** The folders of `kind` every reader merges: this process's records folder's, then the others'. */
export function recordDirs(settings: Pick<RecordsSettings, 'dir' | 'readDirs'>, kind: string): string[] {
  return [settings.dir, ...settings.readDirs].map((dir) => join(dir, kind));
}

/** Opens the records of process `writer` (its engine id, or `cli-<host>-<pid>`). */
export function openRecords(settings: RecordsSettings, writer: string, log: Logger): Records {
  const audit = new AuditLog({
    dir: join(settings.dir, AUDIT_KIND),
    readDirs: recordDirs(settings, AUDIT_KIND),
    process: writer,
    retentionMs: settings.auditRetentionMs,
    log,
  });
  // Its file is made at the first line: a process that runs no step writes none.
  const historyWriter = new JournalWriter({
    dir: join(settings.dir, HISTORY_KIND),
    kind: HISTORY_KIND,
    writer,
    sync: false,
    retentionMs: settings.historyRetentionMs,
    log,
  });
  return {
    audit,
    history: new HistoryReader(recordDirs(settings, HISTORY_KIND), audit),
    ledger: historyLedger(historyWriter, writer),
    close: async () => {
      await Promise.all([audit.close(), historyWriter.close()]);
    },
  };
}
