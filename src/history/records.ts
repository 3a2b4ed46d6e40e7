import { join } from 'node:path';
import type { Logger } from 'pino';
import { AuditLog } from '../audit/audit-log.js';
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

/** Opens the records of process `writer` (its engine id, or `cli-<host>-<pid>`). */
export function openRecords(settings: RecordsSettings, writer: string, log: Logger): Records {
  const dirsOf = (kind: string): string[] =>
    [settings.dir, ...settings.readDirs].map((dir) => join(dir, kind));
  const audit = new AuditLog({
    dir: join(settings.dir, 'audit'),
    readDirs: dirsOf('audit'),
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
    history: new HistoryReader(dirsOf(HISTORY_KIND), audit),
    ledger: historyLedger(historyWriter, writer),
    close: async () => {
      await Promise.all([audit.close(), historyWriter.close()]);
    },
  };
}
