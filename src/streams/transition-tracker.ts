/** A state change of a job or a batch, as `/events` sends it. */
export interface Transition {
  kind: 'job' | 'batch';
  id: string;
  /** `null` for an item first seen after the feed started (a new job or batch). */
  from: string | null;
  to: string;
  /** ISO time: the status node's mtime for batches, when this process saw it for jobs. */
  at: string;
}

/** A job that moved from one state folder to another. */
export type JobMove = Pick<Transition, 'id' | 'from' | 'to'>;

/**
 * Where each job's ref is, learnt from successive listings of the `/jobs/states/<state>`
 * folders, which arrive in any order: a job may appear in its new folder before the listing of
 * its old folder shows it gone, or the other way round. A job is located in the folder it last
 * appeared in; appearing in another folder is a transition from there. Nothing is reported
 * until every folder has been listed once (until then locations are only learnt).
 *
 * Limit: listings are re-reads after coalesced watch fires, so a job that passes through a
 * state between two listings of that folder is never seen there (A → B → C reads as A → C).
 */
export class JobLocations {
  private readonly folders = new Map<string, ReadonlySet<string>>();
  private readonly location = new Map<string, string>();
  /** Jobs that left a folder and have not appeared in another yet (bounded: removed jobs never do). */
  private readonly departed = new Map<string, string>();

  constructor(
    private readonly states: readonly string[],
    private readonly maxDeparted = 10_000,
  ) {}

  /** Every folder has been listed once. */
  get synced(): boolean {
    return this.folders.size === this.states.length;
  }

  /** A new listing of `state`'s folder (job ids); returns the moves it reveals. */
  update(state: string, jids: Iterable<string>): JobMove[] {
    const report = this.synced;
    const before = this.folders.get(state) ?? new Set<string>();
    const now = new Set(jids);
    this.folders.set(state, now);
    for (const jid of before) {
      if (!now.has(jid) && this.location.get(jid) === state) this.depart(jid, state);
    }
    const moves: JobMove[] = [];
    for (const jid of now) {
      if (before.has(jid)) continue;
      const from = this.location.get(jid) ?? this.departed.get(jid) ?? null;
      this.departed.delete(jid);
      this.location.set(jid, state);
      if (report && from !== state) moves.push({ id: jid, from, to: state });
    }
    return moves;
  }

  private depart(jid: string, state: string): void {
    this.location.delete(jid);
    this.departed.set(jid, state);
    if (this.departed.size > this.maxDeparted) {
      const oldest = this.departed.keys().next().value;
      if (oldest !== undefined) this.departed.delete(oldest);
    }
  }
}

/**
 * The last status seen of each batch, from the batch listing and each batch's status reads. The
 * first read of a batch that existed when tracking started is its baseline (no transition); a
 * batch created later reports a transition from `null`. Same limit as {@link JobLocations}:
 * statuses are re-read after coalesced watch fires, so fast consecutive changes may merge.
 */
export class BatchStatuses {
  private readonly known = new Map<string, string | undefined>();
  /** Batches of the first listing whose status has not been read yet (undefined before it). */
  private baseline: Set<string> | undefined;

  /** The first listing was seen and every batch in it has been read once. */
  get synced(): boolean {
    return this.baseline !== undefined && this.baseline.size === 0;
  }

  /** A listing of `/batches`: which batches to start and stop watching. */
  listed(bids: readonly string[], watched: ReadonlySet<string>): { added: string[]; removed: string[] } {
    this.baseline ??= new Set(bids);
    const present = new Set(bids);
    const removed = [...watched].filter((bid) => !present.has(bid));
    for (const bid of removed) {
      this.known.delete(bid);
      this.baseline.delete(bid);
    }
    return { added: bids.filter((bid) => !watched.has(bid)), removed };
  }

  /** A read of `bid`'s status (undefined: missing or unreadable); the transition it reveals, if any. */
  read(bid: string, status: string | undefined): JobMove | undefined {
    const first = !this.known.has(bid);
    const from = this.known.get(bid);
    if (first && this.baseline?.delete(bid)) {
      this.known.set(bid, status);
      return undefined;
    }
    if (status === undefined) {
      if (first) this.known.set(bid, undefined);
      return undefined;
    }
    this.known.set(bid, status);
    return status === from ? undefined : { id: bid, from: from ?? null, to: status };
  }
}
