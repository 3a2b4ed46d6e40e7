import { batchRoles } from '../../../machines/index.js';
import { isZkError } from '../../zk/index.js';
import { batchWorkFor } from '../../queue/batches/acquire.js';
import { createBatch } from '../../queue/batches/create.js';
import { listBatchJobs } from '../../queue/batches/jobs.js';
import { loadBatch, type BatchRecord } from '../../queue/batches/load.js';
import { commitBatchTransition } from '../../queue/batches/transition.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createJobs } from '../../queue/jobs/create.js';
import {
  planLegacyMigration,
  type LegacyBatchPlan,
  type LegacyPlanOptions,
  type LegacySkip,
} from './plan.js';
import { decodeLegacyNode, LEGACY_INGEST_QUEUE, type LegacyRecord, type UnreadableRecord } from './record.js';
import { releaseEventually, releasingOnError, tryLock } from '../../queue/locks/lock.js';
import { batchPath, batchUuidPath } from '../../queue/tree/paths.js';
import { decodeText } from '../../queue/tree/wire.js';

/**
 * `mrtq migrate-legacy`: the records of Merritt's pre-2024 ingest queue (`/ingest/mrtQ-…`) into
 * batches and jobs of the current tree, through the queue's own creation functions. The batch
 * uuid in `/batch-uuids` records that an ingest batch was migrated, and each job's
 * `manifest_position` (the record's sequence number) that its record was, so a second run creates
 * nothing. The legacy nodes are only read: they stay for the operator to remove.
 */

export interface MigrateOptions extends LegacyPlanOptions {
  /** Report what would be created; write nothing. */
  dryRun?: boolean;
}

/** A job a record became (or would become). */
export interface MigratedJob {
  node: string;
  jid?: string;
  /** The state the job starts in: pending, or failed (a Failed or Held record). */
  state: string;
}

/** What happened to one ingest batch. */
export interface MigratedBatch {
  uuid: string;
  bid?: string;
  /**
   * `created` (this run made it or finished an interrupted run), `exists` (migrated before),
   * `would-create` (dry run), `locked` (someone holds its lock: run again).
   */
  outcome: 'created' | 'exists' | 'would-create' | 'locked';
  jobs: MigratedJob[];
}

export interface MigrationReport {
  dryRun: boolean;
  batches: MigratedBatch[];
  skipped: LegacySkip[];
  unreadable: UnreadableRecord[];
}

/** Every record of the legacy queue, read or reported unreadable ([] when there is no queue). */
export async function readLegacyQueue(
  ctx: QueueContext,
): Promise<{ records: LegacyRecord[]; unreadable: UnreadableRecord[] }> {
  const records: LegacyRecord[] = [];
  const unreadable: UnreadableRecord[] = [];
  let names: string[];
  try {
    names = await ctx.zk.getChildren(LEGACY_INGEST_QUEUE);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return { records, unreadable };
    throw err;
  }
  for (const name of [...names].sort()) {
    let data: Buffer | undefined;
    try {
      ({ data } = await ctx.zk.getData(`${LEGACY_INGEST_QUEUE}/${name}`));
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) continue;
      throw err;
    }
    const decoded = decodeLegacyNode(name, data);
    if (decoded.ok) records.push(decoded.record);
    else unreadable.push(decoded.unreadable);
  }
  return { records, unreadable };
}

/** The state a job would be created in: the lifecycle's own answer (a rejected job fails at once). */
const stateOf = (ctx: QueueContext, plan: LegacyBatchPlan['jobs'][number]): string =>
  ctx.lifecycle.newState(
    { jobId: '', batchId: '' },
    plan.spec.rejected ? { type: 'job.rejected', message: plan.spec.rejected } : undefined,
  ).to;

async function batchOfUuid(ctx: QueueContext, uuid: string): Promise<string | undefined> {
  try {
    return decodeText((await ctx.zk.getData(batchUuidPath(uuid))).data) || undefined;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

async function describe(ctx: QueueContext, plan: LegacyBatchPlan): Promise<MigratedBatch> {
  const bid = await batchOfUuid(ctx, plan.uuid);
  if (bid) return { uuid: plan.uuid, bid, outcome: 'exists', jobs: [] };
  const jobs = plan.jobs.map((job) => ({ node: job.node, state: stateOf(ctx, job) }));
  return { uuid: plan.uuid, outcome: 'would-create', jobs };
}

/** A batch this migration made and has not finished expanding (a run that was interrupted). */
const unfinished = (batch: BatchRecord): boolean => batchWorkFor(batch, false) === 'expand';

/**
 * Creates the batch (or finds it by uuid), then, holding its lock, moves it to processing as an
 * expansion would, creates the jobs whose record has none yet, and records the job count: the
 * engine then treats it as any expanded batch (reported once its jobs are done).
 */
async function apply(ctx: QueueContext, plan: LegacyBatchPlan): Promise<MigratedBatch> {
  const { bid } = await createBatch(ctx, plan.submission);
  const result: MigratedBatch = { uuid: plan.uuid, bid, outcome: 'exists', jobs: [] };
  if (!unfinished(await loadBatch(ctx, bid))) return result;
  const attempt = await tryLock(ctx, batchPath(bid));
  if (!attempt.held) return { ...result, outcome: 'locked' };
  const { lock } = attempt;
  return releasingOnError(ctx, lock, async () => {
    let batch = await loadBatch(ctx, bid);
    if (!unfinished(batch)) {
      await releaseEventually(ctx, lock);
      return result;
    }
    if (batch.status === batchRoles.initial)
      batch = await commitBatchTransition(
        ctx,
        { batch, lock },
        { type: 'batch.acquired' },
        { release: false },
      );
    const made = await createJobs(
      ctx,
      bid,
      plan.jobs.map((job) => job.spec),
    );
    const jobCount = (await listBatchJobs(ctx, bid)).length;
    await commitBatchTransition(ctx, { batch, lock }, { type: 'expand.done', jobCount });
    const nodeOf = new Map(plan.jobs.map((job) => [job.spec.position, job.node]));
    const jobs = made.created.map((job) => ({
      node: nodeOf.get(job.position)!,
      jid: job.jid,
      state: job.status,
    }));
    return { ...result, outcome: 'created' as const, jobs };
  });
}

/** Reads the legacy queue and migrates it (or, with `dryRun`, says what it would create). */
export async function migrateLegacyQueue(
  ctx: QueueContext,
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const { records, unreadable } = await readLegacyQueue(ctx);
  const plan = planLegacyMigration(records, unreadable, options);
  const dryRun = options.dryRun ?? false;
  const batches: MigratedBatch[] = [];
  for (const batch of plan.batches) batches.push(await (dryRun ? describe(ctx, batch) : apply(ctx, batch)));
  ctx.log.info(
    {
      dryRun,
      batches: batches.filter((b) => b.outcome === 'created').length,
      jobs: batches.reduce((n, b) => n + (b.outcome === 'created' ? b.jobs.length : 0), 0),
      unreadable: plan.unreadable.length,
    },
    'legacy queue migrated',
  );
  return { dryRun, batches, skipped: plan.skipped, unreadable: plan.unreadable };
}
