import type { NodeData } from '../../zk/index.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { childrenOrEmpty } from '../listing/scan.js';
import { listJobPlaces } from '../rollups/state-index.js';
import { readJobConfiguration, readSubmission } from '../../queue/tree/merritt-ingest-keys.js';
import { BATCHES, JOBS, batchChild, isBatchId, isJobId, jobChild } from '../../queue/tree/paths.js';
import { splitLocalIds, type SearchEntry } from './match.js';
import { decodeText } from '../../queue/tree/wire.js';

/** Requests in flight while the index reads items. */
const READ_CONCURRENCY = 64;

/** How old an index may be before a search refreshes it first (ms). */
export const DEFAULT_INDEX_MAX_AGE_MS = 5_000;

/** What the index holds and how fresh it is. */
export interface SearchIndexStats {
  jobs: number;
  batches: number;
  /** When the last refresh ended (ISO), absent before the first. */
  refreshedAt?: string;
  /** Items read by the last refresh, and how long it took. */
  lastRead: number;
  lastRefreshMs: number;
}

type JobEntry = SearchEntry & { seenState: string | undefined };

/** A node's JSON object, or {} when absent or not readable (a search never fails on one item). */
function jsonOf(node: NodeData | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(node?.data?.toString('utf8') ?? '');
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

async function readJob(ctx: QueueContext, jid: string, state: string | undefined): Promise<JobEntry> {
  const [bid, identifiers, configuration, metadata] = await ctx.zk.getDataMany(
    (['bid', 'identifiers', 'configuration', 'metadata'] as const).map((key) => jobChild(jid, key)),
  );
  const ids = jsonOf(identifiers);
  const config = readJobConfiguration(jsonOf(configuration));
  const meta = jsonOf(metadata);
  const title = textOf(meta.erc_what) ?? textOf(config.erc_what) ?? textOf(config.title);
  const ark = textOf(ids.primary_id);
  const listed: unknown[] = Array.isArray(ids.local_id) ? (ids.local_id as unknown[]) : [];
  const localIds = splitLocalIds([config.local_id, ...listed]);
  const batch = decodeText(bid?.data);
  return {
    kind: 'job',
    id: jid,
    ...(batch ? { bid: batch } : {}),
    ...(ark ? { ark } : {}),
    localIds,
    ...(title ? { title } : {}),
    seenState: state,
  };
}

async function readBatch(ctx: QueueContext, bid: string): Promise<SearchEntry> {
  const [node] = await ctx.zk.getDataMany([batchChild(bid, 'submission')]);
  const submission = readSubmission(jsonOf(node));
  const uuid = textOf(submission.batchID);
  const title = textOf(submission.erc_what);
  return { kind: 'batch', id: bid, ...(uuid ? { uuid } : {}), localIds: [], ...(title ? { title } : {}) };
}

/**
 * The keys a search matches on that ZooKeeper has no index for (ARK, local id, title), kept in
 * memory by the process that searches. Built lazily by the first search, then refreshed at a
 * search when older than `maxAgeMs`: a refresh lists `/jobs`, `/batches` and every state folder
 * (one request each), drops removed items, and reads only new items and jobs whose state changed
 * since they were read (ARKs and local ids are written with transitions). A batch's submission
 * never changes, so a batch is read once. Concurrent searches share one refresh.
 */
export class SearchIndex {
  private readonly jobs = new Map<string, JobEntry>();
  private readonly batches = new Map<string, SearchEntry>();
  private refreshedAt: number | undefined;
  private running: Promise<void> | undefined;
  private last = { read: 0, ms: 0 };

  constructor(
    private readonly ctx: QueueContext,
    private readonly maxAgeMs = DEFAULT_INDEX_MAX_AGE_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Refreshes when older than the maximum age (or never built); resolves when fresh enough. */
  fresh(): Promise<void> {
    const age = this.refreshedAt === undefined ? Infinity : this.clock() - this.refreshedAt;
    if (age <= this.maxAgeMs) return Promise.resolve();
    this.running ??= this.refresh().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Every entry, batches first. */
  entries(): SearchEntry[] {
    return [...this.batches.values(), ...this.jobs.values()];
  }

  stats(): SearchIndexStats {
    return {
      jobs: this.jobs.size,
      batches: this.batches.size,
      ...(this.refreshedAt !== undefined ? { refreshedAt: new Date(this.refreshedAt).toISOString() } : {}),
      lastRead: this.last.read,
      lastRefreshMs: this.last.ms,
    };
  }

  private async refresh(): Promise<void> {
    const started = this.clock();
    const [jids, bids, states] = await Promise.all([
      childrenOrEmpty(this.ctx, JOBS).then((names) => new Set(names.filter(isJobId))),
      childrenOrEmpty(this.ctx, BATCHES).then((names) => new Set(names.filter(isBatchId))),
      // Where each job's ref sits: one listing per state folder (the rollups' own reading).
      listJobPlaces(this.ctx).then(
        (places) => new Map([...places].map(([jid, place]) => [jid, place.state])),
      ),
    ]);
    for (const jid of this.jobs.keys()) if (!jids.has(jid)) this.jobs.delete(jid);
    for (const bid of this.batches.keys()) if (!bids.has(bid)) this.batches.delete(bid);
    const limit = createLimit(READ_CONCURRENCY);
    const stale = [...jids].filter((jid) => {
      const entry = this.jobs.get(jid);
      return !entry || entry.seenState !== states.get(jid);
    });
    const unseen = [...bids].filter((bid) => !this.batches.has(bid));
    await Promise.all([
      ...stale.map((jid) =>
        limit(async () => this.jobs.set(jid, await readJob(this.ctx, jid, states.get(jid)))),
      ),
      ...unseen.map((bid) => limit(async () => this.batches.set(bid, await readBatch(this.ctx, bid)))),
    ]);
    this.refreshedAt = this.clock();
    this.last = { read: stale.length + unseen.length, ms: this.refreshedAt - started };
    this.ctx.log.debug({ ...this.stats() }, 'search index refreshed');
  }
}
