/**
 * One line of an item's history (issue 35): a step of a job, batch or access request as this
 * engine ran it, and how it ended. A commit is a transition (`state` → `to`); a discard is an
 * attempt that ended without one (handed back, a stale result, a lost session).
 */
export interface HistoryEntry {
  /** When the step ended (ISO 8601). */
  at: string;
  /** `jid…`, `bid…`, or an access request's id. */
  item: string;
  /** The state the step ran in. */
  state: string;
  outcome: 'committed' | 'discarded';
  /** The state after a commit. */
  to?: string;
  /** The event committed (or that would have been). */
  event?: string;
  /** When the step started, and how long it ran (ms), when this engine saw it start. */
  started?: string;
  ms?: number;
  /** The engine that ran it (`/engines/<id>`). */
  engine: string;
  /** Why a discard ended without a commit (`LOCK_LOST`, `aborted`, `step error`…). */
  reason?: string;
  /** The event's message (a failure, a retry's wait), or a discard's error. */
  message?: string;
  /** What the step noted: files and digests, identifiers, a failure's class, earlier attempts. */
  detail?: Readonly<Record<string, unknown>>;
}

export const HISTORY_KIND = 'history';
