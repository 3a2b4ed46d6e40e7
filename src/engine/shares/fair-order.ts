/**
 * The order in which waiting jobs are offered, fair across share keys (stride scheduling): each
 * key has a pass that grows by 1/weight at each job of its taken, and the next job offered is the
 * first waiting one of the key with the smallest pass. A key that had nothing waiting rejoins at
 * the smallest pass of the others (no credit for time away). Within a key, jobs keep their
 * acquisition order (priority, then id). Pure apart from the passes it keeps.
 */
export class FairOrder {
  private readonly passes = new Map<string, number>();

  /** A job of `key` was taken: its pass moves on by 1/weight. */
  taken(key: string, weight: number): void {
    this.passes.set(key, (this.passes.get(key) ?? this.floor()) + 1 / weight);
  }

  /** The smallest pass of the keys known (0 before any). */
  private floor(): number {
    let least: number | undefined;
    for (const pass of this.passes.values()) if (least === undefined || pass < least) least = pass;
    return least ?? 0;
  }

  /**
   * `candidates` (in acquisition order) interleaved by key: at most `room(key)` of each key
   * (undefined: no bound), by weight. Candidates whose key is not known yet come last, in their
   * order, unless `unknownLast` is false (a cap applies: one of them might be of a key at its cap),
   * when they are left out until their key is known.
   */
  order(
    candidates: readonly string[],
    keyOf: (candidate: string) => string | undefined,
    weight: (key: string) => number,
    room: (key: string) => number | undefined,
    unknownLast = true,
  ): string[] {
    const byKey = new Map<string, string[]>();
    const unknown: string[] = [];
    for (const candidate of candidates) {
      const key = keyOf(candidate);
      if (key === undefined) unknown.push(candidate);
      else {
        const list = byKey.get(key);
        if (list) list.push(candidate);
        else byKey.set(key, [candidate]);
      }
    }
    const rest = unknownLast ? unknown : [];
    if (byKey.size <= 1 && [...byKey.keys()].every((key) => room(key) === undefined))
      return [...(byKey.values().next().value ?? []), ...rest];
    // Keys rejoining start at the least pass of the keys that wait.
    const waiting = [...byKey.keys()];
    const known = waiting.filter((key) => this.passes.has(key)).map((key) => this.passes.get(key)!);
    const floor = known.length > 0 ? Math.min(...known) : 0;
    const lanes = waiting.map((key) => {
      const list = byKey.get(key)!;
      const bound = room(key);
      const take = bound === undefined ? list : list.slice(0, Math.max(0, bound));
      return {
        key,
        list: take,
        next: 0,
        pass: Math.max(this.passes.get(key) ?? floor, floor),
        step: 1 / weight(key),
      };
    });
    const ordered: string[] = [];
    for (;;) {
      let best: (typeof lanes)[number] | undefined;
      for (const lane of lanes)
        if (
          lane.next < lane.list.length &&
          (best === undefined || lane.pass < best.pass || (lane.pass === best.pass && lane.key < best.key))
        )
          best = lane;
      if (!best) break;
      ordered.push(best.list[best.next++]!);
      best.pass += best.step;
    }
    return [...ordered, ...rest];
  }
}
