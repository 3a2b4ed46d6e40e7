/**
 * Arms a one-shot watch that calls `changed` when what an item waits on changes (or already has).
 * A watch that cannot tell whether the item changed between the look that made it wait and the
 * arming calls `armed` once armed: the item is looked at once more, its watch staying in place.
 */
export type WatchItem = (id: string, changed: () => void, armed: () => void) => void;

/**
 * Items skipped until something about them changes, each with one watch, shared by every
 * consumer that meets the item. Two kinds wait so:
 * - items another session holds the lock of (watched through their lock): a job handed from
 *   state to state by another engine keeps its lock, so the consumers of its later states skip
 *   it without trying the lock again;
 * - items that could not be used (nodes still being written one by one by another tool, or bad
 *   data), watched through their nodes: read again when they change, not at every folder event.
 * When the watch fires, every consumer that met the item is poked.
 */
export class WaitingItems {
  private readonly waiting = new Map<string, Set<() => void>>();
  /**
   * Items whose watch is armed and has not fired: one watch per item and session, however often
   * the item is forgotten (a sweep) and met again. ZooKeeper keeps a watch until it fires, so
   * arming one at every meeting would pile them up on an item that never changes.
   */
  private readonly armed = new Set<string>();

  constructor(private readonly watch: WatchItem) {}

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
    if (this.armed.has(id)) return;
    this.armed.add(id);
    this.watch(
      id,
      () => {
        this.armed.delete(id);
        this.release(id);
      },
      () => this.release(id),
    );
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
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const p of new Set(all.flatMap((pokes) => [...pokes]))) p();
  }
}
