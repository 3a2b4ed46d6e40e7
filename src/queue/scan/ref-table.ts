/** Refs by the job id they name: a `Map<string, R[]>`, or the index's compact {@link RefTable}. */
export interface RefsByJob<R> extends Iterable<[string, readonly R[]]> {
  readonly size: number;
  has(jid: string): boolean;
  get(jid: string): readonly R[] | undefined;
}

/** A list of refs read from one folder, and how to make the ref at a position of it. */
interface FolderEntry<R> {
  /** Ordinal of the folder's first ref among all refs of the table. */
  start: number;
  make(position: number): R;
}

/**
 * Refs by the job id they name, held as numbers: a ref is its ordinal among the children of the
 * folders added, and the ref object is made only when asked for. At a million jobs an object per
 * ref (and an array per job) would be over 100 MB; a number in a map entry costs nothing more
 * than the entry, and the folders' child lists, which the table reads from, are held anyway.
 */
export class RefTable<R> implements RefsByJob<R> {
  private readonly byJob = new Map<string, number | number[]>();
  private readonly folders: FolderEntry<R>[] = [];
  private total = 0;

  get size(): number {
    return this.byJob.size;
  }

  /**
   * Adds a folder of `size` children; `make` turns a position in it into its ref. Returns the
   * ordinal of its first child, for {@link add}.
   */
  addFolder(size: number, make: (position: number) => R): number {
    const start = this.total;
    this.folders.push({ start, make });
    this.total += size;
    return start;
  }

  /** Files the ref at `ordinal` under the job it names. */
  add(jid: string, ordinal: number): void {
    const held = this.byJob.get(jid);
    if (held === undefined) this.byJob.set(jid, ordinal);
    else if (typeof held === 'number') this.byJob.set(jid, [held, ordinal]);
    else held.push(ordinal);
  }

  has(jid: string): boolean {
    return this.byJob.has(jid);
  }

  get(jid: string): readonly R[] | undefined {
    const held = this.byJob.get(jid);
    return held === undefined ? undefined : this.refsOf(held);
  }

  *[Symbol.iterator](): IterableIterator<[string, readonly R[]]> {
    for (const [jid, held] of this.byJob) yield [jid, this.refsOf(held)];
  }

  private refsOf(held: number | number[]): R[] {
    return typeof held === 'number' ? [this.refAt(held)] : held.map((ordinal) => this.refAt(ordinal));
  }

  /** The folder holding `ordinal` (the last one starting at or before it), then the ref there. */
  private refAt(ordinal: number): R {
    let low = 0;
    let high = this.folders.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.folders[middle]!.start <= ordinal) low = middle;
      else high = middle - 1;
    }
    const folder = this.folders[low]!;
    return folder.make(ordinal - folder.start);
  }
}
