/**
 * A fixed number of the newest items, oldest first: pushing onto a full buffer drops the oldest.
 * Memory is bounded by `capacity` however long the process runs.
 */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`a ring buffer holds at least one item, not ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    const end = (this.start + this.count) % this.capacity;
    this.items[end] = item;
    if (this.count < this.capacity) this.count += 1;
    else this.start = (this.start + 1) % this.capacity;
  }

  /** The items oldest first; `keep` narrows them (the newest match last). */
  toArray(keep: (item: T) => boolean = () => true): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i += 1) {
      const item = this.items[(this.start + i) % this.capacity] as T;
      if (keep(item)) out.push(item);
    }
    return out;
  }
}
