import type { QueueContext } from '../../queue/tree/context.js';
import { childrenOrEmpty } from '../listing/scan.js';
import {
  BATCHES,
  JOBS,
  batchChild,
  isBatchId,
  isJobId,
  jobChild,
  type JobKey,
} from '../../queue/tree/paths.js';
import type { SearchEntry } from '../search/match.js';
import {
  MOVED_JOB_NODES,
  NEW_JOB_NODES,
  readBatch,
  readMovedJob,
  readNewJob,
  type JobEntry,
} from './entries.js';
import { readNodesInChunks } from './nodes.js';
import { listJobPlaces, samePlace, type JobPlace } from './places.js';

/** How old the job states may be before a reader lists the state folders again (ms). */
export const STATES_MAX_AGE_MS = 1_000;
/** How old the job index may be before a reader that names no age of its own refreshes it (ms). */
export const INDEX_MAX_AGE_MS = 2_000;

/** What rollups and sorting see of a job with a ref: its place, profile and collection, when its status last changed. */
export interface IndexedJob extends JobPlace {
  profile: string;
  collection: string;
  /** The status's `last_modified` (ms since the epoch; the node's mtime when unparsable). */
  updated: number;
}

/** How big and how fresh the index is, and what its last refresh cost. */
export interface JobIndexStats {
  jobs: number;
  batches: number;
  /** When the last refresh ended (ISO), absent before the first. */
  refreshedAt?: string;
  /** Items read by the last refresh (new jobs and batches, jobs that moved), and its duration. */
  lastRead: number;
  lastRefreshMs: number;
}

/**
 * Every job and batch, as rollups, sorting and search need them, kept in memory by the process
 * that reads them and refreshed incrementally: a refresh lists `/jobs`, `/batches` and every state
 * folder (one request each), drops removed items, and reads only new items and jobs whose state
 * or priority changed since (a move rewrites the status and is when identifiers and metadata are
 * written: see {@link MOVED_JOB_NODES}); a configuration and a batch's submission never change and
 * are read once. Nodes are read 200 items to a multi-read.
 *
 * Readers call {@link fresh} with the age they accept (or the index's own), or {@link freshPlaces}
 * (the state folders alone, at most {@link STATES_MAX_AGE_MS} old); concurrent readers share one
 * refresh. A node rewritten without a transition (a status's message, identifiers set by hand) is
 * seen at the job's next move. Jobs without a ref (a damaged tree) are searched but not counted.
 */
export class JobIndex {
  private readonly jobs = new Map<string, JobEntry>();
  /** The jobs with a ref: what rollups count and sorting orders. */
  private readonly placed = new Map<string, IndexedJob>();
  private readonly batches = new Map<string, SearchEntry>();
  private places: { at: number; map: Promise<Map<string, JobPlace>> } | undefined;
  private refreshedAt: number | undefined;
  private running: Promise<void> | undefined;
  private last = { read: 0, ms: 0 };

  constructor(
    private readonly ctx: QueueContext,
    private readonly maxAgeMs = INDEX_MAX_AGE_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Where each job's ref sits, listed at most {@link STATES_MAX_AGE_MS} ago. */
  freshPlaces(): Promise<Map<string, JobPlace>> {
    const now = this.clock();
    if (!this.places || now - this.places.at > STATES_MAX_AGE_MS) {
      const map = listJobPlaces(this.ctx);
      map.catch(() => (this.places = undefined));
      this.places = { at: now, map };
    }
    return this.places.map;
  }

  /** Every job with a ref, refreshed first when older than `maxAgeMs`. */
  async fresh(maxAgeMs = this.maxAgeMs): Promise<ReadonlyMap<string, IndexedJob>> {
    const age = this.refreshedAt === undefined ? Infinity : this.clock() - this.refreshedAt;
    if (age > maxAgeMs) {
      this.running ??= this.refresh().finally(() => (this.running = undefined));
      await this.running;
    }
    return this.placed;
  }

  /** What a search matches on, batches first, as of the last refresh (call {@link fresh} first). */
  searchEntries(): SearchEntry[] {
    return [...this.batches.values(), ...[...this.jobs.values()].map((job) => job.search)];
  }

  stats(): JobIndexStats {
    const at = this.refreshedAt;
    return {
      jobs: this.jobs.size,
      batches: this.batches.size,
      ...(at !== undefined ? { refreshedAt: new Date(at).toISOString() } : {}),
      lastRead: this.last.read,
      lastRefreshMs: this.last.ms,
    };
  }

  private async refresh(): Promise<void> {
    const started = this.clock();
    this.places = undefined;
    const [jids, bids, places] = await Promise.all([
      childrenOrEmpty(this.ctx, JOBS).then((names) => new Set(names.filter(isJobId))),
      childrenOrEmpty(this.ctx, BATCHES).then((names) => new Set(names.filter(isBatchId))),
      this.freshPlaces(),
    ]);
    for (const jid of this.jobs.keys()) if (!jids.has(jid)) this.forget(jid);
    for (const bid of this.batches.keys()) if (!bids.has(bid)) this.batches.delete(bid);
    const unseen = [...jids].filter((jid) => !this.jobs.has(jid));
    const moved = [...this.jobs.keys()].filter((jid) => !samePlace(this.placed.get(jid), places.get(jid)));
    const newBatches = [...bids].filter((bid) => !this.batches.has(bid));
    const pathsOf = (keys: readonly JobKey[]) => (jid: string) => keys.map((key) => jobChild(jid, key));
    await Promise.all([
      readNodesInChunks(this.ctx, unseen, pathsOf(NEW_JOB_NODES), (jid, nodes) =>
        this.keep(jid, readNewJob(jid, nodes), places.get(jid)),
      ),
      readNodesInChunks(this.ctx, moved, pathsOf(MOVED_JOB_NODES), (jid, nodes) =>
        this.keep(jid, readMovedJob(jid, this.jobs.get(jid)!.config, nodes), places.get(jid)),
      ),
      readNodesInChunks(
        this.ctx,
        newBatches,
        (bid) => [batchChild(bid, 'submission')],
        (bid, [submission]) => this.batches.set(bid, readBatch(bid, submission)),
      ),
    ]);
    this.refreshedAt = this.clock();
    this.last = { read: unseen.length + moved.length + newBatches.length, ms: this.refreshedAt - started };
    this.ctx.log.debug({ ...this.stats() }, 'job index refreshed');
  }

  private keep(jid: string, job: JobEntry, place: JobPlace | undefined): void {
    this.jobs.set(jid, job);
    if (!place) return void this.placed.delete(jid);
    const { profile, collection } = job.config;
    this.placed.set(jid, { ...place, profile, collection, updated: job.updated });
  }

  private forget(jid: string): void {
    this.jobs.delete(jid);
    this.placed.delete(jid);
  }
}

const indexes = new WeakMap<QueueContext, JobIndex>();

/** The one job index of a queue context (created at first use), shared by lists, rollups and search. */
export function jobIndexOf(ctx: QueueContext): JobIndex {
  let index = indexes.get(ctx);
  if (!index) indexes.set(ctx, (index = new JobIndex(ctx)));
  return index;
}
