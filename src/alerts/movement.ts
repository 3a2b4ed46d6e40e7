/** What a folder's stat says about its children: changes (`cversion`) and how many there are. */
export interface FolderCount {
  cversion: number;
  numChildren: number;
}

/**
 * Children created in a folder between two stats of it: every create and every delete adds 1 to
 * `cversion`, and they move `numChildren` by +1 and -1, so creates = (Δcversion + Δchildren) / 2.
 * A folder that was missing and now has children gained them all; one deleted and made again
 * (its cversion went back) is read as having gained its children.
 */
export function createdBetween(before: FolderCount | undefined, after: FolderCount | undefined): number {
  if (!after) return 0;
  if (!before || after.cversion < before.cversion) return after.numChildren;
  return Math.max(0, (after.cversion - before.cversion + after.numChildren - before.numChildren) / 2);
}

/**
 * When the ingest queue last moved, as far as cheap reads tell: a job transition creates a ref in
 * its new state's folder (one stat of each folder shows it, whatever the folder's size: deletes
 * alone, as cleanup's, are not movement), and a batch transition rewrites the batch's status node
 * (its mtime is when). A ref created between two evaluations is dated at the later one, so the
 * age is short by at most one evaluation interval. Nothing is known of the time before the first
 * evaluation: the queue counts as moved then (a restart never fires the rule at once).
 */
export class MovementTracker {
  private folders: ReadonlyMap<string, FolderCount | undefined> | undefined;
  private moved: number;

  constructor(startedAt: number) {
    this.moved = startedAt;
  }

  /** When the queue last moved (ms since the epoch). */
  get lastMovedAt(): number {
    return this.moved;
  }

  /**
   * One evaluation's reads: each job state folder's counts (undefined: no folder) and the newest
   * mtime of a batch status node (undefined: no batch).
   */
  observe(
    folders: ReadonlyMap<string, FolderCount | undefined>,
    newestBatchChange: number | undefined,
    at: number,
  ): void {
    const before = this.folders;
    if (before && [...folders].some(([folder, count]) => createdBetween(before.get(folder), count) > 0))
      this.moved = Math.max(this.moved, at);
    if (newestBatchChange !== undefined) this.moved = Math.max(this.moved, Math.min(newestBatchChange, at));
    this.folders = folders;
  }
}
