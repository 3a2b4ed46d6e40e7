/** What to do with a job that has stayed without a node it needs for the whole grace period. */
export type FailIncomplete = (jid: string, state: string, waitedMs: number) => Promise<'done' | 'retry'>;

/**
 * Jobs found without a node they need (`status`, `bid`, `configuration`), each given `graceMs`
 * to be completed: another tool may still be writing its nodes one by one. A job still so when
 * its time is up is handed to `fail` (which reads it again first); one that became usable meanwhile
 * is cleared. `fail` answering `retry` (ZooKeeper away) tries again after another grace period.
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
    const timer = setTimeout(() => {
      void this.fail(jid, state, this.now() - since).then(
        (outcome) => {
          this.timers.delete(jid);
          if (outcome === 'retry') this.note(jid, state, since);
        },
        () => {
          this.timers.delete(jid);
          this.note(jid, state, since);
        },
      );
    }, this.graceMs);
    timer.unref();
    this.timers.set(jid, timer);
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
