import type { Logger } from 'pino';
import type { QueueError } from '../queue/tree/errors.js';

const MAX_REMEMBERED = 10_000;
/** An item still missing a node this long after it was first seen so is not being written: it is broken. */
const INCOMPLETE_GRACE_MS = 2_000;

interface Seen {
  message: string;
  since: number;
  /** Logged at error (bad data, or incomplete past the grace period). */
  reported: boolean;
}

/**
 * Logs why an item cannot be used once per change of the reason, not once per look: every event
 * in a state folder makes its consumer look at the items there again (and the sweep every
 * minute), and 40 stuck jobs once made about 1,300 log lines a minute. An item whose nodes are
 * still being written (`incomplete`) is logged at debug: another tool writing them one by one is
 * normal. Seen incomplete again after the grace period, it is reported like bad data.
 */
export class ProblemLog {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  report(fields: Record<string, unknown>, id: string, error: QueueError, what: string): void {
    const before = this.seen.get(id);
    const same = before?.message === error.message;
    const since = same ? before.since : this.now();
    const overdue = error.incomplete && this.now() - since >= INCOMPLETE_GRACE_MS;
    const report = !error.incomplete || overdue;
    if (same && (before.reported || !report)) return;
    this.remember(id, { message: error.message, since, reported: report });
    if (report)
      this.log.error({ ...fields, err: error }, `${what} cannot be used; skipped until its nodes change`);
    else
      this.log.debug(
        { ...fields, err: error },
        `${what} is not complete yet; read again when its nodes change`,
      );
  }

  /**
   * An item this engine leaves for another service (a pending batch Merritt's ingest wrote, see
   * src/queue/batches/expandable.ts): nothing is wrong, so one info line per item and reason.
   */
  left(fields: Record<string, unknown>, id: string, reason: string, what: string): void {
    if (this.seen.get(id)?.message === reason) return;
    this.remember(id, { message: reason, since: this.now(), reported: true });
    this.log.info({ ...fields, reason }, `${what} left for the service that can take it`);
  }

  /** The item was used (or is gone): a later problem with it is news again. */
  clear(id: string): void {
    this.seen.delete(id);
  }

  private remember(id: string, seen: Seen): void {
    this.seen.delete(id);
    this.seen.set(id, seen);
    // Oldest first in a Map: forget the longest-known ones beyond the bound.
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
  }
}
