/** Arms a one-shot watch that calls `gone` when the lock of `id` goes away (or is already gone). */
export type WatchLock = (id: string, gone: () => void) => void;

/**
 * Items another session holds the lock of, each with one watch on its lock, shared by every
 * consumer that meets the item: a job handed from state to state by another engine keeps its
 * lock, so the consumers of its later states skip it without trying the lock again. When the
 * lock goes, every consumer that met the item is poked.
 */
export class LockedElsewhere {
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(private readonly watchLock: WatchLock) {}

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Notes that `id` is locked elsewhere; `poke` is called once when its lock goes. */
  add(id: string, poke: () => void): void {
    const pokes = this.waiting.get(id);
    if (pokes) {
      pokes.add(poke);
      return;
    }
    this.waiting.set(id, new Set([poke]));
    this.watchLock(id, () => {
      const gone = this.waiting.get(id);
      this.waiting.delete(id);
      for (const p of gone ?? []) p();
    });
  }

  /**
   * Forgets every item and pokes whoever waited on one: after a new session (the watches of the
   * old one never fire) and at a sweep (a safety net for a missed watch).
   */
  forget(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const p of new Set(all.flatMap((pokes) => [...pokes]))) p();
  }
}
