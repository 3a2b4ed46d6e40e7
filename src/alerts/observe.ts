import type { QueueContext } from '../queue/tree/context.js';
import { decodeWindowHold } from '../queue/windows/holds.js';
import { COLLECTION_LOCKS, jobStateFolder, queueLockPath } from '../queue/tree/paths.js';
import { isZkError, type ZkStat } from '../zk/index.js';
import { BatchReads } from './batch-reads.js';
import type { EngineTracker } from './engine-tracker.js';
import { MovementTracker, type FolderCount } from './movement.js';
import type { CollectionHold, QueueObservation } from './observation.js';
import { RetryReads } from './retry-reads.js';
import { StateAges, type AgeOptions, type StateAge } from './state-ages.js';

/** One evaluation's reads: what the rules decide from, and the ages of the jobs per state. */
export interface Observed {
  observation: QueueObservation;
  ages: StateAge[];
}

export interface ObserverOptions {
  ages?: Partial<AgeOptions>;
  retryReadLimit?: number;
}

/**
 * Reads what the alert rules need, keeping between evaluations what spares reads: each job
 * state folder's stat (one request each, whatever its size) tells whether it changed, which
 * folders' refs and failed jobs need reading again, and whether the queue moved. See
 * docs/engine.md, "Alerts", for the cost.
 */
export class QueueObserver {
  private readonly movement: MovementTracker;
  private readonly ages: StateAges;
  private readonly batches: BatchReads;
  private readonly retries: RetryReads;

  constructor(
    private readonly queue: QueueContext,
    private readonly engines: EngineTracker,
    startedAt: number,
    options: ObserverOptions = {},
  ) {
    this.movement = new MovementTracker(startedAt);
    this.ages = new StateAges(queue, options.ages);
    this.batches = new BatchReads(queue);
    this.retries = new RetryReads(queue, options.retryReadLimit);
  }

  async observe(at: number, minEngines: number): Promise<Observed> {
    const { lifecycle } = this.queue;
    const [stats, paused, batches, holds] = await Promise.all([
      this.folderStats(),
      this.queue.zk.exists(queueLockPath('ingest')),
      this.batches.read(),
      this.readHolds(),
    ]);
    const [ages, retries] = await Promise.all([this.ages.read(stats, at), this.retries.read(stats, at)]);
    const counts = new Map<string, FolderCount | undefined>(stats);
    this.movement.observe(counts, batches.newestChange, at);
    const waitingJobs = lifecycle.servableStates.reduce(
      (sum, s) => sum + (stats.get(s)?.numChildren ?? 0),
      0,
    );
    const observation: QueueObservation = {
      at,
      ingest: {
        paused: paused !== undefined,
        waitingJobs,
        waitingBatches: batches.waiting,
        lastMovedAt: this.movement.lastMovedAt,
      },
      openBatches: batches.open,
      holds,
      retried: retries.retried,
      retriesRead: { jobs: retries.read, partial: retries.partial },
      engines: {
        registered: this.engines.registered(),
        gone: this.engines.goneEngines(),
        fewerSince: this.engines.fewerSince(minEngines),
      },
    };
    return { observation, ages };
  }

  /**
   * Every job state folder's stat, by state (undefined: no folder), in one multiRead (a folder's
   * data is empty): an idle engine beside it pays one request, not one per state.
   */
  private async folderStats(): Promise<Map<string, ZkStat | undefined>> {
    const { lifecycle, zk } = this.queue;
    const nodes = await zk.getDataMany(lifecycle.states.map((s) => jobStateFolder(lifecycle.folderOf(s))));
    return new Map(lifecycle.states.map((state, i) => [state, nodes[i]?.stat]));
  }

  /** The collection holds: each node's creation, and the window that placed it (its data). */
  private async readHolds(): Promise<CollectionHold[]> {
    let names: string[];
    try {
      names = await this.queue.zk.getChildren(COLLECTION_LOCKS);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return [];
      throw err;
    }
    const nodes = await this.queue.zk.getDataMany(names.map((name) => `${COLLECTION_LOCKS}/${name}`));
    return names.flatMap((collection, i) => {
      const node = nodes[i];
      if (!node) return [];
      const hold = decodeWindowHold(node.data);
      const until = hold ? Date.parse(hold.until) : Number.NaN;
      return [
        {
          collection,
          since: node.stat.ctime,
          ...(hold && Number.isFinite(until) ? { window: { name: hold.window, until } } : {}),
        },
      ];
    });
  }
}
