import type { Actor } from '../auth/actor.js';

/** How an operator action ended for its item. */
export type AuditOutcome = 'done' | 'refused' | 'error';

/**
 * One line of the audit log (issue 35): who did what to which item, why, when, the item's state
 * before and after, and how it ended. A bulk action writes one line for the request and one for
 * each job it touched, all with the same `request`.
 */
export interface AuditEntry {
  at: string;
  actor: Pick<Actor, 'name' | 'role' | 'via'>;
  /** `requeue job`, `hold collection`, `bulk delete`, `cleanup`, `doctor repair`… */
  action: string;
  /** The item acted on: `jid…`, `bid…`, `queue:ingest`, `collection:demo`, `window:nightly`, `policy:retry`. */
  item?: string;
  reason?: string;
  before?: string;
  after?: string;
  outcome: AuditOutcome;
  /** The refusal's code or the failure's message, when not done. */
  error?: string;
  /** Groups the lines of one request (a bulk action and its jobs). */
  request?: string;
  /** The process that wrote the line (engine id, or `cli-<host>-<pid>`). */
  process: string;
  /** What else the action carried (a bulk filter, a requeue's target state, counts). */
  detail?: Record<string, unknown>;
}

/** What a caller says about an action; the log adds when and which process. */
export type AuditRecord = Omit<AuditEntry, 'at' | 'process'>;

/**
 * Actions that destroy or end work (a deleted job or batch, a failed one): their reason is
 * required, by the API and the CLI alike. A cleanup removes only what its retention let go, as
 * every engine does each hour: no reason asked.
 */
export const DESTRUCTIVE_ACTIONS: ReadonlySet<string> = new Set([
  'delete job',
  'delete batch',
  'fail job',
  'bulk delete',
]);

export const needsReason = (action: string): boolean => DESTRUCTIVE_ACTIONS.has(action);
