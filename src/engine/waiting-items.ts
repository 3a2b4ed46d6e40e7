/**
 * Arms a one-shot watch that calls `changed` when what an item waits on changes (or already has).
 * A watch that cannot tell whether the item changed between the look that made it wait and the
 * arming calls `armed` once armed: the item is looked at once more, its watch staying in place.
 */
export type WatchItem = (id: string, changed: () => void, armed: () => void) => void;

/**
 * Items that could not be used are also looked at again on a timer, whose delay doubles at each
 * look that finds the item still unusable, from `firstMs` up to `maxMs`: a safety net for a
 * change no watch saw, that costs next to nothing for an item nobody mends.
 */
export interface Backoff {
  firstMs: number;
  maxMs: number;
}

/** Items remembered with their backoff step; the longest-known are forgotten past this bound. */
const MAX_REMEMBERED = 10_000;

/**
 * Items skipped until something about them changes, each with one watch, shared by every
 * consumer that meets the item. Two kinds wait so:
 * - items another session holds the lock of (watched through their lock): a job handed from
 *   state to state by another engine keeps its lock, so the consumers of its later states skip
 *   it without trying the lock again;
 * - items that could not be used (nodes still being written one by one by another tool, or bad
 *   data), watched through their nodes: read again when they change, not at every folder event.
 * When the watch fires, every consumer that met the item is poked. With a {@link Backoff}, an item
 * is also looked at again when its timer runs out, and only then, or when its watch fires: not
 * at a sweep (`forget`), which would read every bad item again each time.
 */
export class WaitingItems {
  private readonly waiting = new Map<string, Set<() => void>>();
  /**
   * Items whose watch is armed and has not fired: one watch per item and session, however often
   * the item is forgotten (a sweep) and met again. ZooKeeper keeps a watch until it fires, so
   * arming one at every meeting would pile them up on an item that never changes.
   */
  private readonly armed = new Set<string>();

  /** Looks at each item under backoff so far (since it last changed or was used), and its timer. */
  private readonly backoffs = new Map<string, { looks: number; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly watch: WatchItem,
    private readonly backoff?: Backoff,
  ) {}

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Notes that `id` waits; `poke` is called once when its watch fires. */
  add(id: string, poke: () => void): void {
    const pokes = this.waiting.get(id);
    if (pokes) {
      pokes.add(poke);
      return;
    }
    this.waiting.set(id, new Set([poke]));
    this.startTimer(id);
    if (this.armed.has(id)) return;
    this.armed.add(id);
    this.watch(
      id,
      () => {
        this.armed.delete(id);
        // It changed: looked at now, and its backoff starts again.
        this.stopTimer(id, true);
        this.release(id);
      },
      () => this.release(id),
    );
  }

  /**
   * `id` was used, or is gone: its backoff is forgotten (a later problem with it starts from the
   * first delay).
   */
  clear(id: string): void {
    this.stopTimer(id, true);
  }

  /** The delay before `id` is looked at again, in ms (undefined without backoff or timer). */
  delayOf(id: string): number | undefined {
    const entry = this.backoffs.get(id);
    return entry?.timer === undefined || !this.backoff ? undefined : this.delayAt(entry.looks - 1);
  }

  private delayAt(looks: number): number {
    const { firstMs, maxMs } = this.backoff!;
    return Math.min(maxMs, firstMs * 2 ** Math.min(looks, 30));
  }

  private startTimer(id: string): void {
    if (!this.backoff) return;
    const entry = this.backoffs.get(id) ?? { looks: 0 };
    if (entry.timer !== undefined) return;
    const timer = setTimeout(() => {
      entry.timer = undefined;
      this.release(id);
    }, this.delayAt(entry.looks));
    timer.unref();
    entry.looks++;
    entry.timer = timer;
    this.backoffs.delete(id);
    this.backoffs.set(id, entry);
    if (this.backoffs.size > MAX_REMEMBERED) {
      const [oldest, old] = this.backoffs.entries().next().value as [string, { timer?: NodeJS.Timeout }];
      clearTimeout(old.timer);
      this.backoffs.delete(oldest);
    }
  }

  private stopTimer(id: string, reset: boolean): void {
    const entry = this.backoffs.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (reset) this.backoffs.delete(id);
  }

  /** Pokes whoever waits on `id`, which is met afresh. */
  private release(id: string): void {
    const pokes = this.waiting.get(id);
    this.waiting.delete(id);
    for (const p of pokes ?? []) p();
  }

  /**
   * Forgets every item and pokes whoever waited on one: at a sweep (a safety net for a missed
   * watch; the armed watches stay), and after a new session (`newSession`: the watches of the old
   * one never fire, so they are armed again when the items are met again).
   */
  forget(newSession = false): void {
    if (newSession) this.armed.clear();
    // Under backoff, a sweep leaves them to their timers; a new session must arm new watches.
    if (this.backoff && !newSession) return;
    for (const id of this.backoffs.keys()) this.stopTimer(id, false);
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const p of new Set(all.flatMap((pokes) => [...pokes]))) p();
  }

  /** Stops every timer (the engine is stopping). */
  stop(): void {
    for (const id of [...this.backoffs.keys()]) this.stopTimer(id, true);
  }
}
