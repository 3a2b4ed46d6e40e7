import {
  batchStateTable,
  batchWireNames,
  cleanedUpStates,
  parseBatchState,
  BATCH_FOLDERS,
} from '../../machines/index.js';
import { ZkTransactionError, isZkError, type Op } from '../zk/index.js';
import type { QueueContext } from '../queue/tree/context.js';
import { DEFAULT_ORPHAN_GRACE_MS } from '../doctor/doctor.js';
import { decodeObject, indexRefs, textOf, type RefIndex, type StateRef } from '../queue/scan/ref-index.js';
import { deleteIfPresent, removeOrphans, type CleanupSkip, type OrphanRemoval } from '../doctor/orphans.js';

export type { CleanupSkip } from '../doctor/orphans.js';
import { createLimit, createTreeReader, type TreeReader } from '../queue/scan/reader.js';
import { scanBatch, scanJob, scanQueue, type BatchScan, type QueueScan } from '../queue/scan/snapshot.js';
import { releaseEventually, tryLock } from '../queue/locks/lock.js';
import { batchChild, batchPath, batchUuidPath, jobChild, jobPath, jobRef } from '../queue/tree/paths.js';
import { parseTimestamp } from '../queue/tree/timestamps.js';

export interface CleanupOptions {
  /** Completed and deleted batches last modified longer ago than this are removed. */
  retentionMs: number;
  /** Orphans (empty id nodes, dangling refs) younger than this are left alone. Default 10 min. */
  orphanGraceMs?: number;
  /** Report what would be removed, write nothing. */
  dryRun?: boolean;
  /** ZooKeeper reads in flight at once. Default 256. */
  concurrency?: number;
}

/** A batch removed with its jobs. */
export interface RemovedBatch {
  bid: string;
  status: string;
  lastModified: string;
  jobs: string[];
  uuid: string | undefined;
}

/** What cleanup removed (or, in a dry run, would remove) and what it skipped. */
export interface CleanupReport extends OrphanRemoval {
  dryRun: boolean;
  batches: RemovedBatch[];
  skipped: CleanupSkip[];
}

/** A completed or deleted batch old enough to go, as the scan saw it. */
interface Candidate {
  bid: string;
  status: string;
  lastModified: string;
  uuid: string | undefined;
}

/**
 * Removes completed and deleted batches older than the retention (as mrt-zk's
 * delete_completed_batches does) with all their jobs, then what crashes left behind: id nodes
 * without data, refs to jobs that no longer exist, uuid entries naming no batch.
 *
 * A batch is never removed while it is locked, while its batch-processing folder is not empty,
 * or while one of its jobs is locked or still running; cleanup holds the batch's lock while it
 * works. Each job disappears in one multi (its state refs, its nodes), so no consumer ever sees
 * a ref to a half-deleted job. Every step tolerates nodes already gone, so after a crash midway
 * cleanup simply runs again.
 */
export async function cleanup(ctx: QueueContext, options: CleanupOptions): Promise<CleanupReport> {
  const dryRun = options.dryRun ?? false;
  const read = createTreeReader(ctx.zk, options.concurrency);
  const scan = await scanQueue(ctx, options.concurrency);
  const index = indexRefs(scan);
  const old = await removeOldBatches(ctx, read, { scan, index, retentionMs: options.retentionMs, dryRun });
  const settings = {
    now: ctx.now().getTime(),
    orphanGraceMs: options.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS,
  };
  const removedBatches = new Set(old.batches.map((batch) => batch.bid));
  const leftovers = await removeOrphans(ctx, read, { scan, index, removedBatches, settings, dryRun });
  const report = {
    dryRun,
    ...leftovers,
    batches: old.batches,
    skipped: [...old.skipped, ...leftovers.skipped],
  };
  const counts = {
    batches: report.batches.length,
    orphans: report.orphans.length,
    refs: report.danglingRefs.length,
  };
  ctx.log.info({ dryRun, ...counts }, 'cleanup finished');
  return report;
}

interface BatchPass {
  scan: QueueScan;
  index: RefIndex;
  retentionMs: number;
  dryRun: boolean;
}

/** Removes the old completed and deleted batches one after the other, each with its jobs. */
async function removeOldBatches(
  ctx: QueueContext,
  read: TreeReader,
  { scan, index, retentionMs, dryRun }: BatchPass,
): Promise<{ batches: RemovedBatch[]; skipped: CleanupSkip[] }> {
  const batches: RemovedBatch[] = [];
  const skipped: CleanupSkip[] = [];
  for (const candidate of selectBatches(scan, ctx.now().getTime(), retentionMs, skipped)) {
    const outcome = dryRun
      ? { removed: plannedJobs(scan.batches.get(candidate.bid)!) }
      : await removeBatch(ctx, read, candidate, index);
    if ('removed' in outcome) batches.push({ ...candidate, jobs: outcome.removed });
    else skipped.push({ item: candidate.bid, path: batchPath(candidate.bid), reason: outcome.skipped });
  }
  return { batches, skipped };
}

function plannedJobs(batch: BatchScan): string[] {
  return BATCH_FOLDERS.flatMap((folder) => batch.folders[folder]);
}

/** The batch states cleanup removes batches in (the table's `cleanedUp` rows). */
const REMOVABLE = cleanedUpStates(batchStateTable);

/** The batch's status and last_modified, when both are readable. */
function finalStatus(batch: BatchScan): { status: string; lastModified: string; final: boolean } | undefined {
  if (!batch.status) return undefined;
  const decoded = decodeObject(batchChild(batch.bid, 'status'), batch.status);
  if (!decoded.ok) return undefined;
  const state = typeof decoded.value.status === 'string' ? parseBatchState(decoded.value.status) : undefined;
  if (!state) return undefined;
  const lastModified = typeof decoded.value.last_modified === 'string' ? decoded.value.last_modified : '';
  return { status: batchWireNames[state], lastModified, final: REMOVABLE.has(state) };
}

/** Why a final batch must stay (locked, jobs still running or locked), or undefined. */
function blocker(scan: QueueScan, batch: BatchScan): string | undefined {
  if (batch.lockOwner !== undefined) return `locked by session 0x${batch.lockOwner}`;
  const running = batch.folders['batch-processing'].length;
  if (running > 0) return `${running} jobs are still in batch-processing`;
  const locked = plannedJobs(batch).find((jid) => scan.jobs.get(jid)?.lockOwner !== undefined);
  return locked ? `its job ${locked} is locked` : undefined;
}

function selectBatches(
  scan: QueueScan,
  now: number,
  retentionMs: number,
  skipped: CleanupSkip[],
): Candidate[] {
  const candidates: Candidate[] = [];
  for (const batch of [...scan.batches.values()].sort((a, b) => (a.bid < b.bid ? -1 : 1))) {
    const status = finalStatus(batch);
    if (!status?.final) continue;
    const skip = (reason: string): number =>
      skipped.push({ item: batch.bid, path: batchPath(batch.bid), reason });
    const modified = parseTimestamp(status.lastModified);
    if (!modified) {
      skip(
        `${status.status}, but last_modified "${status.lastModified}" is unreadable (expected yyyy-MM-dd HH:mm:ss Z)`,
      );
    } else if (now - modified.getTime() <= retentionMs) {
      skip(`${status.status} at ${status.lastModified}, within the retention`);
    } else {
      const reason = blocker(scan, batch);
      if (reason) skip(`${status.status}, but ${reason}`);
      else
        candidates.push({
          bid: batch.bid,
          status: status.status,
          lastModified: status.lastModified,
          uuid: uuidOf(batch),
        });
    }
  }
  return candidates;
}

function uuidOf(batch: BatchScan): string | undefined {
  if (!batch.submission) return undefined;
  const decoded = decodeObject(batchChild(batch.bid, 'submission'), batch.submission);
  const uuid = decoded.ok ? decoded.value.batchID : undefined;
  return typeof uuid === 'string' && uuid !== '' ? uuid : undefined;
}

type BatchOutcome = { removed: string[] } | { skipped: string };

/** Removes one batch while holding its lock, so no one acquires it meanwhile. */
async function removeBatch(
  ctx: QueueContext,
  read: TreeReader,
  candidate: Candidate,
  index: RefIndex,
): Promise<BatchOutcome> {
  const attempt = await tryLock(ctx, batchPath(candidate.bid));
  if (!attempt.held) {
    return { skipped: attempt.reason === 'locked' ? 'locked by another session' : 'gone meanwhile' };
  }
  try {
    return await removeLockedBatch(ctx, read, candidate, index);
  } finally {
    // Usually gone with the batch's tree already; then this is a no-op.
    await releaseEventually(ctx, attempt.lock);
  }
}

/** Its jobs (refs and nodes, one multi each), then its uuid entry, then its tree. */
async function removeLockedBatch(
  ctx: QueueContext,
  read: TreeReader,
  candidate: Candidate,
  index: RefIndex,
): Promise<BatchOutcome> {
  // Looked at again under the lock: the scan may be minutes old on a big queue.
  const batch = await scanBatch(read, candidate.bid);
  if (!batch || !finalStatus(batch)?.final) return { skipped: 'its status changed meanwhile' };
  if (batch.folders['batch-processing'].length > 0) {
    return { skipped: 'jobs were requeued into batch-processing meanwhile' };
  }
  const jids = plannedJobs(batch);
  const limit = createLimit(64);
  const outcomes = await Promise.all(
    jids.map((jid) => limit(() => removeJob(ctx, read, candidate.bid, jid, index))),
  );
  const removed = jids.filter((_, i) => outcomes[i]!.removed);
  const blockers = outcomes.flatMap((outcome) => (outcome.blocker ? [outcome.blocker] : []));
  if (blockers.length > 0) {
    const progress = `${removed.length} of ${jids.length} jobs removed; run cleanup again`;
    return { skipped: `${blockers.join('; ')} (${progress})` };
  }
  await removeUuidEntry(ctx, candidate.bid, candidate.uuid);
  await ctx.zk.deleteRecursive(batchPath(candidate.bid));
  ctx.log.info({ batchId: candidate.bid, jobs: jids.length }, 'batch removed');
  return { removed };
}

async function removeUuidEntry(ctx: QueueContext, bid: string, uuid: string | undefined): Promise<void> {
  if (!uuid) return;
  try {
    const { data, stat } = await ctx.zk.getData(batchUuidPath(uuid));
    // Only the entry that names this batch: another batch may have been submitted under the uuid.
    if (textOf({ data, stat }) === bid) await ctx.zk.delete(batchUuidPath(uuid), stat.version);
  } catch (err) {
    if (!isZkError(err, 'NO_NODE') && !isZkError(err, 'BAD_VERSION')) throw err;
  }
}

interface JobOutcome {
  removed: boolean;
  blocker?: string;
}

type JobPlan = { ops: Op[]; refs: string[] } | JobOutcome;

/** Jobs whose batch ref has left batch-processing (completed, failed, deleted) may be removed. */
const isDone = (ctx: QueueContext, state: string): boolean =>
  ctx.lifecycle.batchFolderOf(state) !== 'batch-processing';

/** What removing a job takes now: its existing state refs, its children and itself. */
async function planJobRemoval(
  ctx: QueueContext,
  read: TreeReader,
  bid: string,
  jid: string,
  index: RefIndex,
): Promise<JobPlan> {
  const job = await scanJob(read, jid);
  if (!job) return { removed: false };
  const owner = textOf(job.bid);
  if (owner !== '' && owner !== bid) return { removed: false }; // another batch's job: only our ref goes
  if (job.children.has('lock')) return { removed: false, blocker: `job ${jid} is locked` };
  const status = job.status ? decodeObject(jobChild(jid, 'status'), job.status) : undefined;
  const state =
    status?.ok && typeof status.value.status === 'string'
      ? ctx.lifecycle.parse(status.value.status)
      : undefined;
  if (state && !isDone(ctx, state)) return { removed: false, blocker: `job ${jid} is ${state}` };
  const known = (index.stateRefs.get(jid) ?? []).map((ref: StateRef) => ref.path);
  const priority = Number(textOf(job.priority) || 5);
  const candidates = new Set(
    state ? [...known, jobRef(ctx.lifecycle.folderOf(state), priority, jid)] : known,
  );
  const stats = await Promise.all([...candidates].map((path) => read.stat(path)));
  const refs = [...candidates].filter((_, i) => stats[i] !== undefined);
  const ops: Op[] = [
    ...refs.map((path): Op => ({ op: 'delete', path })),
    ...[...job.children].map((child): Op => ({ op: 'delete', path: `${jobPath(jid)}/${child}` })),
    { op: 'delete', path: jobPath(jid) },
  ];
  return { ops, refs };
}

/** Removes a job in one multi, planned afresh on each try; a tree deeper than mrt-zk writes is removed node by node. */
async function removeJob(
  ctx: QueueContext,
  read: TreeReader,
  bid: string,
  jid: string,
  index: RefIndex,
): Promise<JobOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    const plan = await planJobRemoval(ctx, read, bid, jid, index);
    if (!('ops' in plan)) return plan;
    try {
      await ctx.zk.multi(plan.ops);
      return { removed: true };
    } catch (err) {
      if (!(err instanceof ZkTransactionError)) throw err;
      if (attempt < 3) continue;
      for (const ref of plan.refs) await deleteIfPresent(ctx, ref);
      await ctx.zk.deleteRecursive(jobPath(jid));
      return { removed: true };
    }
  }
}

/**
 * Removes one completed or Deleted batch with its jobs now, whatever its age: the operator's
 * batch delete uses this after setting the batch Deleted. The same rules as cleanup apply (the
 * batch and its jobs must not be locked, no job may still be running); when one stops it, the
 * reason is returned and a later cleanup finishes the work.
 */
export async function removeBatchNow(
  ctx: QueueContext,
  bid: string,
): Promise<{ removed: string[] } | { skipped: string }> {
  const read = createTreeReader(ctx.zk);
  const batch = await scanBatch(read, bid);
  if (!batch) return { removed: [] };
  const index: RefIndex = {
    stateRefs: new Map(),
    batchRefs: new Map(),
    badStateNames: [],
    badBatchNames: [],
    count: 0,
  };
  return removeBatch(ctx, read, { bid, status: '', lastModified: '', uuid: uuidOf(batch) }, index);
}
