import { deleteJob, holdJob, releaseJob, requeueJob } from '../jobs.js';
import {
  BULK_EVENTS,
  checkBulkFilter,
  needsJobData,
  targetStates,
  type BulkAction,
  type BulkFilter,
} from './filter.js';
import { refusalOf, summarize, type BulkItem, type BulkReport } from './outcome.js';
import { selectBulkJobs } from './select.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';
import { isQueueError } from '../../queue/tree/errors.js';
import type { JobRecord } from '../../queue/jobs/load.js';
import { nextJobRecord } from '../../queue/jobs/transition.js';
import { batchPath } from '../../queue/tree/paths.js';

/** How many jobs (or, for requeue and delete, batches) a bulk run works on at once. */
export const BULK_CONCURRENCY = 8;

/** Waits before trying a job again whose batch was locked by its reporter (a moment's refusal). */
const BATCH_BUSY_RETRY_MS = [200, 800] as const;

/** The per-item operator functions: each takes the job's lock and asks the machine. */
const ACTS: Readonly<Record<BulkAction, (ctx: QueueContext, jid: string) => Promise<JobRecord>>> = {
  requeue: (ctx, jid) => requeueJob(ctx, jid),
  delete: (ctx, jid) => deleteJob(ctx, jid),
  release: (ctx, jid) => releaseJob(ctx, jid),
  hold: (ctx, jid) => holdJob(ctx, jid),
};

/** Requeue and delete take the job's batch lock: jobs of one batch go one after another. */
const TAKES_BATCH_LOCK: ReadonlySet<BulkAction> = new Set(['requeue', 'delete']);

export interface BulkOptions {
  /** Only say what would happen (the default of every surface): nothing is written. */
  dryRun: boolean;
  concurrency?: number;
  /** Told of each job's outcome in a real run, as it comes (the audit log's line per job). */
  onItem?: (item: BulkItem) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The machine's answer for one job, without writing anything. */
function predict(ctx: QueueContext, action: BulkAction, job: JobRecord): BulkItem {
  const { jobId: jid, batchId: bid, status: from } = job;
  try {
    const next = nextJobRecord(ctx.lifecycle, job, BULK_EVENTS[action]);
    return { jid, bid, from, outcome: 'would', to: next.status };
  } catch (err) {
    return { jid, bid, from, outcome: 'refused', ...refusalOf(err) };
  }
}

/** One job through its per-item function; a batch locked by its reporter is tried again shortly. */
async function apply(ctx: QueueContext, action: BulkAction, job: JobRecord): Promise<BulkItem> {
  const { jobId: jid, batchId: bid, status: from } = job;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const after = await ACTS[action](ctx, jid);
      return { jid, bid, from, outcome: 'done', to: after.status };
    } catch (err) {
      const wait = BATCH_BUSY_RETRY_MS[attempt];
      const batchBusy = isQueueError(err, 'LOCK_HELD') && err.item === batchPath(bid);
      if (batchBusy && wait !== undefined) {
        await sleep(wait);
        continue;
      }
      return { jid, bid, from, outcome: 'refused', ...refusalOf(err) };
    }
  }
}

/** Runs `work` over the jobs, `concurrency` at a time; grouped by batch when the action locks it. */
async function eachJob(
  jobs: readonly JobRecord[],
  byBatch: boolean,
  concurrency: number,
  work: (job: JobRecord) => Promise<BulkItem>,
): Promise<BulkItem[]> {
  const limit = createLimit(Math.max(1, concurrency));
  const groups = new Map<string, JobRecord[]>();
  for (const job of [...jobs].sort((a, b) => (a.jobId < b.jobId ? -1 : 1))) {
    const key = byBatch ? job.batchId : job.jobId;
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  const results = await Promise.all(
    [...groups.values()].map((group) =>
      limit(async () => {
        const done: BulkItem[] = [];
        for (const job of group) done.push(await work(job));
        return done;
      }),
    ),
  );
  return results.flat();
}

/**
 * Applies an operator action to every job that matches the filter, each through its per-item
 * function (requeueJob, deleteJob, releaseJob, holdJob), so the lifecycle checks every job and a
 * refusal is that job's outcome, not the run's end. A dry run reads the same jobs and asks the
 * machine what each would do, writing nothing (a lock held elsewhere, or a batch being reported,
 * shows only in the real run). BAD_REQUEST for a filter the lifecycle cannot read, NOT_FOUND
 * for a batch that does not exist.
 */
export async function runBulk(
  ctx: QueueContext,
  action: BulkAction,
  filter: BulkFilter,
  options: BulkOptions,
): Promise<BulkReport> {
  checkBulkFilter(ctx.lifecycle, filter);
  const states = targetStates(ctx.lifecycle, action, filter);
  const { jobs, unreadable } = await selectBulkJobs(ctx, filter, states);
  const work = options.dryRun
    ? (job: JobRecord) => Promise.resolve(predict(ctx, action, job))
    : async (job: JobRecord) => {
        const item = await apply(ctx, action, job);
        options.onItem?.(item);
        return item;
      };
  const concurrency = options.concurrency ?? BULK_CONCURRENCY;
  const items = await eachJob(jobs, TAKES_BATCH_LOCK.has(action), concurrency, work);
  // Without a collection or profile filter an unreadable candidate matches as far as can be told.
  const reportUnreadable = !needsJobData(filter);
  if (reportUnreadable)
    for (const { jid, error } of unreadable)
      items.push({ jid, outcome: 'refused', error: error.code, message: error.message });
  const report = summarize(
    { action, dryRun: options.dryRun, filter: { ...filter }, states },
    items,
    reportUnreadable ? 0 : unreadable.length,
  );
  ctx.log.info({ action, filter, dryRun: options.dryRun, counts: report.counts }, 'bulk action');
  return report;
}
