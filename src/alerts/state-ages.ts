import type { QueueContext } from '../queue/tree/context.js';
import { createLimit } from '../queue/scan/reader.js';
import { jobStateFolder, parseRefName } from '../queue/tree/paths.js';
import { isZkError, type ZkStat } from '../zk/index.js';
import { ageQuantiles } from './quantiles.js';

/**
 * How long each job has been in its state: the age of its ref under `/jobs/states/<state>`, whose
 * creation (ctime) is the transition into the state (the ref is made in that transition's multi).
 *
 * Cost, measured on the 2-core box with 1,000,000 refs in one folder: a stat of the folder 4 ms;
 * listing it 0.2-1.1 s for a 20 MB reply (blocking the event loop up to ~0.25 s while names are
 * walked); reading 1,000 refs' stats in 200-path multiReads 140-270 ms. So:
 * - a folder whose stat (`cversion`) did not change since it was read is not read again;
 * - a folder of at most {@link AgeOptions.exactLimit} refs is listed and every ref read: exact;
 * - a larger one is listed at most every {@link AgeOptions.relistMs}, and then a random sample of
 *   {@link AgeOptions.sampleSize} refs gives the middle quantiles, and the refs of the lowest job
 *   ids (the oldest jobs, when the folder is worked in order) a better oldest. Between listings
 *   only the sample is read again (refs gone are dropped, their ages grow with the clock).
 */
export interface AgeOptions {
  exactLimit: number;
  sampleSize: number;
  oldestCandidates: number;
  relistMs: number;
  random: () => number;
}

export const DEFAULT_AGE_OPTIONS: AgeOptions = {
  exactLimit: 2_000,
  sampleSize: 1_000,
  oldestCandidates: 100,
  relistMs: 5 * 60_000,
  random: Math.random,
};

/** One state's ages: its jobs, how many were read, whether all were, and quantile → seconds. */
export interface StateAge {
  state: string;
  jobs: number;
  read: number;
  exact: boolean;
  /** Quantile (`"0.5"`, `"0.9"`, `"0.99"`, `"1"`: the oldest) → seconds; empty when none was read. */
  quantiles: Readonly<Record<string, number>>;
}

/** A folder as last read: the refs' creation times (ms), and which of them are the random sample. */
interface FolderRead {
  cversion: number;
  listedAt: number;
  created: Map<string, number>;
  /** Refs of the random sample; undefined when every ref was read. */
  sample?: ReadonlySet<string>;
}

/** Paths per multiRead, and multiReads in flight. */
const READ_CHUNK = 200;
const READS_IN_FLIGHT = 4;

/** The ages of the jobs in every state that is not final, read at most as often as they change. */
export class StateAges {
  private readonly folders = new Map<string, FolderRead>();
  private readonly options: AgeOptions;

  constructor(
    private readonly queue: QueueContext,
    options: Partial<AgeOptions> = {},
  ) {
    this.options = { ...DEFAULT_AGE_OPTIONS, ...options };
  }

  /** The states measured: every state of the lifecycle jobs leave (final ones are retention, not waiting). */
  get states(): readonly string[] {
    return this.queue.lifecycle.states.filter((state) => !this.queue.lifecycle.isFinal(state));
  }

  /** Each measured state's ages at `now`, given the stats of the state folders just read. */
  async read(stats: ReadonlyMap<string, ZkStat | undefined>, now: number): Promise<StateAge[]> {
    const reads = await Promise.all(this.states.map((state) => this.readState(state, stats.get(state), now)));
    return this.states.map((state, i) => {
      const read = reads[i];
      const jobs = stats.get(state)?.numChildren ?? 0;
      if (!read) return { state, jobs, read: 0, exact: true, quantiles: {} };
      const ages = (names: Iterable<string>): number[] =>
        [...names].flatMap((name) => {
          const created = read.created.get(name);
          return created === undefined ? [] : [Math.max(0, now - created)];
        });
      const all = ages(read.created.keys());
      const sampled = read.sample ? ages(read.sample) : all;
      return {
        state,
        jobs,
        read: read.created.size,
        exact: !read.sample,
        quantiles: ageQuantiles({ sampled, oldest: all.length > 0 ? Math.max(...all) : undefined }),
      };
    });
  }

  private async readState(
    state: string,
    stat: ZkStat | undefined,
    now: number,
  ): Promise<FolderRead | undefined> {
    const folder = jobStateFolder(this.queue.lifecycle.folderOf(state));
    const last = this.folders.get(state);
    let read: FolderRead | undefined;
    if (!stat || stat.numChildren === 0) read = undefined;
    else if (last && last.cversion === stat.cversion) read = last;
    else if (stat.numChildren <= this.options.exactLimit) read = await this.readAll(folder, now);
    else if (last?.sample && now - last.listedAt < this.options.relistMs)
      read = await this.reread(folder, last);
    else read = await this.readSample(folder, now);
    if (read) this.folders.set(state, read);
    else this.folders.delete(state);
    return read;
  }

  /** Every ref of a small folder. */
  private async readAll(folder: string, now: number): Promise<FolderRead | undefined> {
    const listing = await this.list(folder);
    if (!listing) return undefined;
    const names = await listing.toArray();
    return { cversion: listing.stat.cversion, listedAt: now, created: await this.ctimes(folder, names) };
  }

  /** A large folder listed: a random sample and the lowest job ids. */
  private async readSample(folder: string, now: number): Promise<FolderRead | undefined> {
    const listing = await this.list(folder);
    if (!listing) return undefined;
    const { sampleSize, oldestCandidates, random } = this.options;
    const sample: string[] = [];
    const lowest: { jid: number; name: string }[] = [];
    let seen = 0;
    await listing.each((name) => {
      seen += 1;
      // Reservoir sampling: each name is in the sample with the same chance.
      if (sample.length < sampleSize) sample.push(name);
      else {
        const slot = Math.floor(random() * seen);
        if (slot < sampleSize) sample[slot] = name;
      }
      const jid = Number(parseRefName(name)?.jid.slice(3) ?? Number.NaN);
      if (!Number.isFinite(jid)) return;
      if (lowest.length === oldestCandidates && jid >= lowest.at(-1)!.jid) return;
      const at = lowest.findIndex((entry) => entry.jid > jid);
      lowest.splice(at < 0 ? lowest.length : at, 0, { jid, name });
      if (lowest.length > oldestCandidates) lowest.pop();
    });
    const names = [...new Set([...sample, ...lowest.map((entry) => entry.name)])];
    return {
      cversion: listing.stat.cversion,
      listedAt: now,
      created: await this.ctimes(folder, names),
      sample: new Set(sample),
    };
  }

  /** The refs of the last sample still there (their creation times do not change). */
  private async reread(folder: string, last: FolderRead): Promise<FolderRead> {
    const created = await this.ctimes(folder, [...last.created.keys()]);
    return { ...last, created, sample: new Set([...last.sample!].filter((name) => created.has(name))) };
  }

  private async list(folder: string) {
    try {
      return await this.queue.zk.getChildNames(folder);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return undefined;
      throw err;
    }
  }

  /** Creation time of each ref that still exists. */
  private async ctimes(folder: string, names: readonly string[]): Promise<Map<string, number>> {
    const limit = createLimit(READS_IN_FLIGHT);
    const chunks: string[][] = [];
    for (let i = 0; i < names.length; i += READ_CHUNK) chunks.push(names.slice(i, i + READ_CHUNK));
    const created = new Map<string, number>();
    await Promise.all(
      chunks.map((chunk) =>
        limit(async () => {
          const nodes = await this.queue.zk.getDataMany(chunk.map((name) => `${folder}/${name}`));
          chunk.forEach((name, i) => {
            const node = nodes[i];
            if (node) created.set(name, node.stat.ctime);
          });
        }),
      ),
    );
    return created;
  }
}
