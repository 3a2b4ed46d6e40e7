/** What to do with a job that has stayed without a node it needs for the whole grace period. */
export type FailIncomplete = (jid: string, state: string, waitedMs: number) => Promise<'done' | 'retry'>;

/**
 * After the deadline, a job that could not be failed yet (its lock held for a moment by another
 * look at it, ZooKeeper away) is tried again this soon, then at twice the delay each time, up to
 * the grace period: the limit still ends the wait within a few percent of it (issue 32: waiting a
 * whole grace period again made a 20 s limit fail jobs 55–72 s after the loss).
 */
const FIRST_RETRY_FRACTION = 1 / 20;
const FIRST_RETRY_MAX_MS = 1000;

/**
 * Jobs found without a node they need (`status`, `bid`, `configuration`), each given `graceMs`
 * to be completed: another tool may still be writing its nodes one by one. A job still so when
 * its time is up is handed to `fail` (which reads it again first); one that became usable meanwhile
 * is cleared. `fail` answering `retry` (its lock held elsewhere for a moment, ZooKeeper away) tries
 * again soon (see FIRST_RETRY_FRACTION), by a timer, never at a later sighting.
 * A grace of 0 turns this off: such jobs wait, watched, as other unusable items do.
 */
export class IncompleteJobs {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly graceMs: number,
    private readonly fail: FailIncomplete,
    private readonly now: () => number = Date.now,
  ) {}

  /** `jid`, a job of `state`, was found missing a node: failed after the grace unless cleared. */
  note(jid: string, state: string, since = this.now()): void {
    if (this.graceMs <= 0 || this.timers.has(jid)) return;
    this.schedule(jid, state, since, this.graceMs, this.firstRetryMs());
  }

  private firstRetryMs(): number {
    return Math.max(1, Math.min(FIRST_RETRY_MAX_MS, Math.round(this.graceMs * FIRST_RETRY_FRACTION)));
  }

  private schedule(jid: string, state: string, since: number, delayMs: number, retryMs: number): void {
    const again = (): void => {
      if (this.timers.get(jid) !== timer) return; // cleared or stopped meanwhile
      this.schedule(jid, state, since, retryMs, Math.min(retryMs * 2, this.graceMs));
    };
    const timer = setTimeout(() => {
      void this.fail(jid, state, this.now() - since).then(
        (outcome) => (outcome === 'retry' ? again() : this.forget(jid, timer)),
        again,
      );
    }, delayMs);
    timer.unref();
    this.timers.set(jid, timer);
  }

  private forget(jid: string, timer: NodeJS.Timeout): void {
    if (this.timers.get(jid) === timer) this.timers.delete(jid);
  }

  /** `jid` was used (or is gone): its clock stops. */
  clear(jid: string): void {
    clearTimeout(this.timers.get(jid));
    this.timers.delete(jid);
  }

  /** Jobs on the clock now. */
  get size(): number {
    return this.timers.size;
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
