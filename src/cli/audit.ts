/**
 * The operator commands' lines in the audit log (issue 35): who (`user@host` at this terminal;
 * ZooKeeper's ACLs, not a role, decide what a CLI may do), what, which item, why, the item's
 * state before and after, and the outcome. Loaded when a command runs (see lazy.ts).
 */
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { AUDIT_KIND, AuditLog } from '../audit/audit-log.js';
import { needsReason, type AuditRecord } from '../audit/entry.js';
import { auditedAction } from '../audit/audited-action.js';
import type { Config } from '../config/config.js';
import { HISTORY_KIND } from '../history/entry.js';
import { HistoryReader } from '../history/reader.js';
import { recordDirs } from '../history/records.js';
import type { QueueContext } from '../queue/tree/context.js';
import { CliError, ExitCode } from './exit-codes.js';

/** What an operator command says of itself. */
export interface CliAction {
  action: string;
  /** The item acted on, as the audit log names it (`jid…`, `queue:ingest`…). */
  item?: string;
  reason?: string;
  detail?: Record<string, unknown>;
}

/** Whoever runs this command: the login name and host. */
export function cliActor(): AuditRecord['actor'] {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the uid is all there is.
    user = `uid${process.getuid?.() ?? ''}`;
  }
  return { name: `${user}@${hostname()}`, via: 'cli' };
}

/** The audit log as this command writes and reads it (its records folder, and other hosts'). */
export function cliAuditLog(config: Config, queue: Pick<QueueContext, 'log'>): AuditLog {
  const { records } = config;
  return new AuditLog({
    dir: join(records.dir, AUDIT_KIND),
    readDirs: recordDirs(records, AUDIT_KIND),
    process: `cli-${hostname()}-${process.pid}`,
    retentionMs: records.auditRetentionMs,
    log: queue.log,
  });
}

/** The histories as this command reads them (every records folder it knows). */
export function cliHistory(config: Config, queue: Pick<QueueContext, 'log'>): HistoryReader {
  const { records } = config;
  return new HistoryReader(recordDirs(records, HISTORY_KIND), cliAuditLog(config, queue));
}

/** A destructive action without its reason is refused before anything is done. */
export function requireReason(what: CliAction): void {
  if (needsReason(what.action) && (what.reason === undefined || what.reason.trim() === ''))
    throw new CliError(`${what.action} needs --reason <text> (it is kept in the audit log)`, ExitCode.usage);
}

/** What the line keeps of the work's result. */
export interface AuditedResult<T> {
  /** The item the work made, for one that names none. */
  created?(result: T): string | undefined;
  /** Counts and the like, added to the line's detail. */
  detail?(result: T): Record<string, unknown>;
}

/** How a command's failure reads in its line: a refusal carries its code (QueueError, CliError…). */
function outcomeOf(err: unknown): Pick<AuditRecord, 'outcome'> & { error: string } {
  const coded = err instanceof Error && 'code' in err && typeof err.code === 'string';
  const message = err instanceof Error ? err.message : String(err);
  return {
    outcome: coded ? 'refused' : 'error',
    error: err instanceof Error && 'code' in err ? `${String(err.code)}: ${message}` : message,
  };
}

/**
 * Runs an operator command's work and writes its line: the item's state is read before and after.
 */
export async function audited<T>(
  config: Config,
  queue: QueueContext,
  what: CliAction,
  work: () => Promise<T>,
  result: AuditedResult<T> = {},
): Promise<T> {
  requireReason(what);
  const log = cliAuditLog(config, queue);
  try {
    return await auditedAction(
      {
        queue,
        line: {
          actor: cliActor(),
          action: what.action,
          ...(what.reason !== undefined ? { reason: what.reason } : {}),
          ...(what.detail ? { detail: what.detail } : {}),
        },
        record: (line) => log.record(line),
        ...(what.item !== undefined ? { item: what.item } : {}),
        ...result,
        outcomeOf,
      },
      work,
    );
  } finally {
    await log.close();
  }
}
