import type { Logger } from 'pino';
import { readJournal, type JournalRead } from '../journal/reader.js';
import { JournalWriter } from '../journal/writer.js';
import type { AuditEntry, AuditRecord } from './entry.js';

export const AUDIT_KIND = 'audit';

/** Which audit lines a reader wants. */
export interface AuditQuery {
  item?: string;
  actor?: string;
  action?: string;
  since?: Date;
  until?: Date;
  limit?: number;
}

export interface AuditLogOptions {
  /** Where this process writes (`<records>/audit`); undefined: it reads only. */
  dir?: string;
  /** Every folder read (this one, and other hosts' when they are not shared). */
  readDirs: readonly string[];
  /** This process, in file names and lines. */
  process: string;
  retentionMs?: number;
  log: Logger;
}

/**
 * The audit log of operator actions: an append-only JSON-lines file per process and day, each
 * line on disk before the action's answer (see JournalWriter), and a merged, time-ordered view of
 * all of them. Files, not ZooKeeper (which keeps current state, not history: every byte there is
 * held in every server's memory) and not an embedded database (none without a native build
 * runs on Node 20 here, and a file per process needs no lock across hosts): `grep` and `jq` read
 * them too.
 */
export class AuditLog {
  private readonly writer: JournalWriter | undefined;

  constructor(private readonly options: AuditLogOptions) {
    this.writer =
      options.dir === undefined
        ? undefined
        : new JournalWriter({
            dir: options.dir,
            kind: AUDIT_KIND,
            writer: options.process,
            sync: true,
            retentionMs: options.retentionMs,
            log: options.log,
          });
  }

  /** Appends one line (never throws: a disk that refuses it is logged). */
  record(record: AuditRecord): void {
    const entry: AuditEntry = { at: new Date().toISOString(), process: this.options.process, ...record };
    if (this.writer) this.writer.write(entry);
    else
      this.options.log.warn({ audit: entry }, 'operator action not in the audit log: no records directory');
  }

  query(query: AuditQuery = {}): Promise<JournalRead<AuditEntry>> {
    const { item, actor, action } = query;
    return readJournal<AuditEntry>(this.options.readDirs, AUDIT_KIND, {
      since: query.since,
      until: query.until,
      limit: query.limit,
      // The item's id, or else the actor's name, narrows the lines parsed.
      contains: item !== undefined ? `"${item}"` : actor !== undefined ? `"${actor}"` : undefined,
      where: (entry) =>
        (item === undefined || entry.item === item || itemsOf(entry).includes(item)) &&
        (actor === undefined || entry.actor?.name === actor) &&
        (action === undefined || entry.action === action),
    });
  }

  close(): Promise<void> {
    return this.writer?.close() ?? Promise.resolve();
  }
}

/** Items a line names besides its own: a job's batch (so a batch's log shows its jobs' actions). */
function itemsOf(entry: AuditEntry): string[] {
  const batch = entry.detail?.batch;
  return typeof batch === 'string' ? [batch] : [];
}
