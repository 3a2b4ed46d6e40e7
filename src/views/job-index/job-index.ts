import type { NodeData } from '../../zk/index.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { childrenOrEmpty } from '../listing/scan.js';
import { readJobConfiguration } from '../../queue/tree/merritt-ingest-keys.js';
import { JOBS, isJobId, jobChild, jobStateFolder, parseRefName } from '../../queue/tree/paths.js';
import { parseTimestamp } from '../../queue/tree/timestamps.js';

/** How old the job states may be before a reader lists the state folders again (ms). */
export const STATES_MAX_AGE_MS = 1_000;
/** How old the job index may be before a reader refreshes it (ms). */
export const INDEX_MAX_AGE_MS = 2_000;
/** Jobs whose nodes one multi-read fetches, and such reads in flight. */
const READ_CHUNK = 200;
const READ_CONCURRENCY = 8;

/** Where a job's ref sits: its state folder and the priority in the ref's name. */
export type JobPlace = { state: string; priority: number };

/** What the index keeps of a job: its place, its profile and collection, when its status last changed. */
export interface IndexedJob extends JobPlace {
  profile: string;
  collection: string;
  /** The status's `last_modified` (ms since the epoch; the node's mtime when unparsable). */
  updated: number;
}

/** How big and how fresh the index is, and what its last refresh cost. */
export interface JobIndexStats {
  jobs: number;
  refreshedAt?: string;
  /** Jobs read (configuration and status, or status alone) by the last refresh, and its duration. */
  lastRead: number;
  lastRefreshMs: number;
}

/** Every job with a ref, by jid: one listing per state folder, no job read. */
export async function listJobPlaces(ctx: QueueContext): Promise<Map<string, JobPlace>> {
  const { states } = ctx.lifecycle;
  const lists = await Promise.all(states.map((state) => childrenOrEmpty(ctx, jobStateFolder(state))));
  const places = new Map<string, JobPlace>();
  lists.forEach((refs, i) => {
    for (const ref of refs) {
      const parsed = parseRefName(ref);
      if (parsed) places.set(parsed.jid, { state: states[i] as string, priority: parsed.priority });
    }
  });
  return places;
}

function jsonOf(node: NodeData | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(node?.data?.toString('utf8') ?? '');
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

function updatedOf(status: NodeData | undefined): number {
  const text = jsonOf(status).last_modified;
  return (typeof text === 'string' ? parseTimestamp(text)?.getTime() : undefined) ?? status?.stat.mtime ?? 0;
}

/**
 * What sorting and rollups need of every job, kept in memory and refreshed incrementally: a
 * refresh lists `/jobs` and every state folder (one request each), drops removed jobs, reads the
 * configuration and status of new jobs (profile and collection never change) and only the status
 * of jobs whose state or priority changed since (a status is rewritten with every transition).
 * Readers call {@link fresh} (at most {@link INDEX_MAX_AGE_MS} old) or {@link freshPlaces}
 * (the state folders alone, at most {@link STATES_MAX_AGE_MS} old); concurrent readers share one
 * refresh. A status rewritten without a transition (a message) is seen at the job's next move.
 */
export class JobIndex {
  private readonly jobs = new Map<string, IndexedJob>();
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

  /** Every job, refreshed first when older than the maximum age. */
  async fresh(): Promise<ReadonlyMap<string, IndexedJob>> {
    const age = this.refreshedAt === undefined ? Infinity : this.clock() - this.refreshedAt;
    if (age > this.maxAgeMs) {
      this.running ??= this.refresh().finally(() => (this.running = undefined));
      await this.running;
    }
    return this.jobs;
  }

  stats(): JobIndexStats {
    const at = this.refreshedAt;
    return {
      jobs: this.jobs.size,
      ...(at !== undefined ? { refreshedAt: new Date(at).toISOString() } : {}),
      lastRead: this.last.read,
      lastRefreshMs: this.last.ms,
    };
  }

  private async refresh(): Promise<void> {
    const started = this.clock();
    this.places = undefined;
    const [names, places] = await Promise.all([childrenOrEmpty(this.ctx, JOBS), this.freshPlaces()]);
    const jids = new Set(names.filter(isJobId));
    for (const jid of this.jobs.keys()) if (!jids.has(jid) || !places.has(jid)) this.jobs.delete(jid);
    const unseen: string[] = [];
    const moved: string[] = [];
    for (const [jid, place] of places) {
      if (!jids.has(jid)) continue;
      const known = this.jobs.get(jid);
      if (!known) unseen.push(jid);
      else if (known.state !== place.state || known.priority !== place.priority) moved.push(jid);
    }
    await Promise.all([this.readChunks(unseen, places, true), this.readChunks(moved, places, false)]);
    this.refreshedAt = this.clock();
    this.last = { read: unseen.length + moved.length, ms: this.refreshedAt - started };
    this.ctx.log.debug({ ...this.stats() }, 'job index refreshed');
  }

  private async readChunks(jids: string[], places: Map<string, JobPlace>, whole: boolean): Promise<void> {
    const limit = createLimit(READ_CONCURRENCY);
    const chunks: string[][] = [];
    for (let i = 0; i < jids.length; i += READ_CHUNK) chunks.push(jids.slice(i, i + READ_CHUNK));
    await Promise.all(chunks.map((chunk) => limit(() => this.readChunk(chunk, places, whole))));
  }

  private async readChunk(jids: string[], places: Map<string, JobPlace>, whole: boolean): Promise<void> {
    const keys = whole ? (['configuration', 'status'] as const) : (['status'] as const);
    const nodes = await this.ctx.zk.getDataMany(jids.flatMap((jid) => keys.map((key) => jobChild(jid, key))));
    jids.forEach((jid, i) => {
      const place = places.get(jid)!;
      const status = nodes[i * keys.length + keys.length - 1];
      const known = this.jobs.get(jid);
      if (!whole) {
        if (known) this.jobs.set(jid, { ...known, ...place, updated: updatedOf(status) });
        return;
      }
      const config = readJobConfiguration(jsonOf(nodes[i * keys.length]));
      const profile = textOf(config.profile_name);
      const collection = textOf(config.collection) || profile;
      this.jobs.set(jid, { ...place, profile, collection, updated: updatedOf(status) });
    });
  }
}

const indexes = new WeakMap<QueueContext, JobIndex>();

/** The one job index of a queue context (created at first use), shared by lists and rollups. */
export function jobIndexOf(ctx: QueueContext): JobIndex {
  let index = indexes.get(ctx);
  if (!index) indexes.set(ctx, (index = new JobIndex(ctx)));
  return index;
}
