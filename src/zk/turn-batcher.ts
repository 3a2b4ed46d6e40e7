/** A bound on a group: the sum of `of(item)` over its items stays at most `max`. */
export interface GroupBound<T> {
  of(item: T): number;
  max: number;
}

/**
 * Items offered in one turn of the event loop, handed on together once that turn's I/O is done
 * (`setImmediate`), in groups within `bounds`: everything that becomes ready in one turn (one
 * socket read answers many requests, and each answer's continuation asks next) leaves as few
 * requests as the bounds allow. An item alone over a bound still leaves, in a group of its own.
 * GroupCommit (multis) and ReadBatch (multiReads) are built on it.
 */
export class TurnBatcher<T> {
  private waiting: T[] = [];

  constructor(
    private readonly send: (group: T[]) => void,
    private readonly bounds: readonly GroupBound<T>[],
  ) {}

  add(item: T): void {
    this.waiting.push(item);
    if (this.waiting.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const waiting = this.waiting;
    this.waiting = [];
    let group: T[] = [];
    const sums = this.bounds.map(() => 0);
    const sizes = this.bounds.map(() => 0);
    for (const item of waiting) {
      this.bounds.forEach((bound, i) => (sizes[i] = bound.of(item)));
      if (group.length > 0 && this.bounds.some((bound, i) => sums[i]! + sizes[i]! > bound.max)) {
        this.send(group);
        group = [];
        sums.fill(0);
      }
      group.push(item);
      sizes.forEach((size, i) => (sums[i]! += size));
    }
    if (group.length > 0) this.send(group);
  }
}
