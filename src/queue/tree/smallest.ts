/** The `count` smallest items offered, by `after` (a total order): a bounded max-heap. */
export class Smallest<T> {
  private readonly heap: T[] = []; // heap[0] is the largest of the smallest `count`

  constructor(
    private readonly count: number,
    private readonly after: (a: T, b: T) => boolean,
  ) {}

  /** The largest item kept, once `count` are kept (an item after it is not taken). */
  get bound(): T | undefined {
    return this.heap.length >= this.count ? this.heap[0] : undefined;
  }

  offer(item: T): void {
    const { heap, count, after } = this;
    let i: number;
    if (heap.length < count) {
      heap.push(item);
      for (i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!after(item, heap[parent]!)) break;
        heap[i] = heap[parent]!;
        i = parent;
      }
      heap[i] = item;
    } else if (count > 0 && after(heap[0]!, item)) {
      for (i = 0; ;) {
        const left = 2 * i + 1;
        let top = left;
        if (left >= count) break;
        if (left + 1 < count && after(heap[left + 1]!, heap[left]!)) top = left + 1;
        if (!after(heap[top]!, item)) break;
        heap[i] = heap[top]!;
        i = top;
      }
      heap[i] = item;
    }
  }

  /** The items kept, smallest first. */
  sorted(): T[] {
    const { after } = this;
    return [...this.heap].sort((a, b) => (after(a, b) ? 1 : after(b, a) ? -1 : 0));
  }
}
