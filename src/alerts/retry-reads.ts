import { currentRetry, decodeRetry, retryPath } from '../queue/jobs/retry-record.js';
import type { QueueContext } from '../queue/tree/context.js';
import { createLimit } from '../queue/scan/reader.js';
import { isQueueError } from '../queue/tree/errors.js';
import { jobChild, jobStateFolder, parseRefName } from '../queue/tree/paths.js';
import { decodeJobStatus } from '../queue/tree/wire.js';
import { isZkError, type NodeData, type ZkStat } from '../zk/index.js';
import type { RetriedJob } from './observation.js';

/** Jobs whose two nodes one multiRead fetches. */
const READ_CHUNK = 100;
const READS_IN_FLIGHT = 4;
/** Retried jobs kept per read, most retried first. */
const KEPT = 1_000;
/** Jobs read at most per evaluation: beyond it the rule says it read only part. */
export const DEFAULT_RETRY_READ_LIMIT = 20_000;
/** A failed folder whose stat did not change is read again after this long all the same (a status rewritten in place). */
const REREAD_MS = 5 * 60_000;

/** What one read gives: the retried jobs, how many jobs were read, whether some were left out. */
export interface RetryReading {
  retried: RetriedJob[];
  read: number;
  partial: boolean;
}

/** What is known of one folder's jobs: jid → its retries (undefined: never retried). */
interface FolderJobs {
  cversion: number;
  /** When every job of the folder was last read (not only the new ones). */
  fullReadAt: number;
  jobs: Map<string, RetriedJob | undefined>;
}

/**
 * How often each job was retried: its status's `retry_count` (requeues after a failure, by an
 * operator or Merritt's admin) plus the transient failures its current retry record counts
 * (`/jobs/<jid>/retry`, the engine's own retries). Only the jobs that can carry either are read:
 * those of the working states and of the failed state(s) (a requeue resumes at a working state;
 * a job that ran out of attempts fails). Working states hold few jobs (the engines'
 * concurrency) and are read whole every evaluation, as a retry record changes without a
 * transition. A failed job changes only by leaving the folder (a requeue moves it), so of a
 * failed folder only the jobs new since the last read are read, and every job only every few
 * minutes (a status rewritten in place); nothing when its stat shows no change. At most `limit`
 * jobs are read per evaluation: the rest are read at the next ones.
 */
export class RetryReads {
  private readonly known = new Map<string, FolderJobs>();

  constructor(
    private readonly queue: QueueContext,
    private readonly limit = DEFAULT_RETRY_READ_LIMIT,
  ) {}

  /** The states read: working and failed, in table order. */
  get states(): string[] {
    const { lifecycle } = this.queue;
    return lifecycle.states.filter((s) => lifecycle.isWorking(s) || lifecycle.isFailed(s));
  }

  async read(stats: ReadonlyMap<string, ZkStat | undefined>, now: number): Promise<RetryReading> {
    const reading: RetryReading = { retried: [], read: 0, partial: false };
    let budget = this.limit;
    for (const state of this.states) {
      const stat = stats.get(state);
      if (!stat || stat.numChildren === 0) {
        this.known.delete(state);
        continue;
      }
      let known = this.known.get(state);
      const full = this.queue.lifecycle.isWorking(state) || !known || now - known.fullReadAt >= REREAD_MS;
      if (full || known?.cversion !== stat.cversion) {
        const jids = await this.jidsOf(state);
        const wanted = full || !known ? jids : jids.filter((jid) => !known!.jobs.has(jid));
        const taken = wanted.slice(0, Math.max(0, budget));
        budget -= taken.length;
        const read = await this.readJobs(taken);
        const jobs = new Map<string, RetriedJob | undefined>();
        for (const jid of jids)
          if (read.has(jid)) jobs.set(jid, read.get(jid));
          else if (!full && known?.jobs.has(jid)) jobs.set(jid, known.jobs.get(jid));
        const complete = taken.length === wanted.length;
        if (!complete) reading.partial = true;
        known = {
          cversion: complete ? stat.cversion : -1, // listed again next time, for the jobs left
          fullReadAt: full ? now : known!.fullReadAt,
          jobs,
        };
        this.known.set(state, known);
      }
      reading.read += known.jobs.size;
      for (const job of known.jobs.values()) if (job) reading.retried.push(job);
    }
    reading.retried.sort((a, b) => b.retries - a.retries || (a.jid < b.jid ? -1 : 1));
    reading.retried.splice(KEPT);
    return reading;
  }

  private async jidsOf(state: string): Promise<string[]> {
    try {
      const names = await this.queue.zk.getChildren(jobStateFolder(this.queue.lifecycle.folderOf(state)));
      return names.flatMap((name) => parseRefName(name)?.jid ?? []).sort();
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return [];
      throw err;
    }
  }

  /** Each job's retries (undefined: unreadable, or no retry); jobs gone meanwhile are left out. */
  private async readJobs(jids: readonly string[]): Promise<Map<string, RetriedJob | undefined>> {
    const limit = createLimit(READS_IN_FLIGHT);
    const chunks: string[][] = [];
    for (let i = 0; i < jids.length; i += READ_CHUNK) chunks.push(jids.slice(i, i + READ_CHUNK));
    const read = new Map<string, RetriedJob | undefined>();
    await Promise.all(
      chunks.map((chunk) =>
        limit(async () => {
          const paths = chunk.flatMap((jid) => [jobChild(jid, 'status'), retryPath(jid)]);
          const nodes = await this.queue.zk.getDataMany(paths);
          chunk.forEach((jid, j) => {
            const status = nodes[2 * j];
            if (!status) return;
            const job = this.retriesOf(jid, status, nodes[2 * j + 1]);
            read.set(jid, job && job.retries > 0 ? job : undefined);
          });
        }),
      ),
    );
    return read;
  }

  private retriesOf(
    jid: string,
    status: NodeData | undefined,
    retry: NodeData | undefined,
  ): RetriedJob | undefined {
    if (!status) return undefined;
    try {
      const { status: state, retryCount } = decodeJobStatus(
        jobChild(jid, 'status'),
        status.data,
        this.queue.lifecycle,
      );
      const current = currentRetry(decodeRetry(retry?.data), {
        status: state,
        statusVersion: status.stat.version,
      });
      const failures = current?.failures ?? 0;
      return { jid, state, retries: retryCount + failures, retryCount, failures };
    } catch (err) {
      if (isQueueError(err)) return undefined; // unreadable: the doctor reports it
      throw err;
    }
  }
}
