import { isZkError } from '../zk/index.js';
import type { QueueContext } from '../queue/tree/context.js';
import { isOrphanBatch, isOrphanJob, type RefIndex } from '../queue/scan/ref-index.js';
import { olderThanGrace, type CheckSettings } from './problems.js';
import type { TreeReader } from '../queue/scan/reader.js';
import { scanBatch, scanJob, type QueueScan } from '../queue/scan/snapshot.js';
import { batchPath, jobPath } from '../queue/tree/paths.js';

/**
 * The part of cleanup that removes what crashes leave behind, found the way `doctor` finds
 * ORPHAN_ID_NODE, JOB_STATE_REF_DANGLING, BATCH_REF_DANGLING and BATCH_UUID_DANGLING.
 */

/** Something cleanup left in place, and why. */
export interface CleanupSkip {
  item: string;
  path: string;
  reason: string;
}

/** What the orphan pass removed (or, in a dry run, would remove). */
export interface OrphanRemoval {
  /** Ids of empty or data-less id nodes (`jidN`, `bidN`). */
  orphans: string[];
  /** Paths of refs whose job does not exist. */
  danglingRefs: string[];
  /** uuids whose `/batch-uuids` entry named no batch. */
  danglingUuids: string[];
  skipped: CleanupSkip[];
}

export interface OrphanInput {
  scan: QueueScan;
  index: RefIndex;
  /** Batches this run removed: their refs and uuid entries are already gone. */
  removedBatches: ReadonlySet<string>;
  settings: Pick<CheckSettings, 'now' | 'orphanGraceMs'>;
  dryRun: boolean;
}

/** Deletes a node; false when it is already gone or (with `version`) changed meanwhile. */
export async function deleteIfPresent(ctx: QueueContext, path: string, version?: number): Promise<boolean> {
  try {
    await ctx.zk.delete(path, version);
    return true;
  } catch (err) {
    if (isZkError(err, 'NO_NODE') || isZkError(err, 'BAD_VERSION')) return false;
    throw err;
  }
}

/**
 * Removes orphan id nodes, then refs to missing jobs, then uuid entries naming missing batches,
 * each older than the grace period and checked again just before it goes.
 */
export async function removeOrphans(
  ctx: QueueContext,
  read: TreeReader,
  input: OrphanInput,
): Promise<OrphanRemoval> {
  const skipped: CleanupSkip[] = [];
  const orphans = await removeOrphanIds(ctx, read, input, skipped);
  const danglingRefs = await removeDanglingRefs(ctx, read, input);
  const danglingUuids = await removeDanglingUuids(ctx, read, input, new Set(orphans));
  return { orphans, danglingRefs, danglingUuids, skipped };
}

interface OrphanCandidate {
  id: string;
  path: string;
  /** Still an orphan now? A reason to keep it, 'gone', or undefined to remove it. */
  recheck(): Promise<string | undefined>;
}

function orphanCandidates(read: TreeReader, input: OrphanInput): OrphanCandidate[] {
  const { scan, index, settings } = input;
  const jobs = [...scan.jobs.values()]
    .filter((job) => isOrphanJob(job, index) && olderThanGrace(job.ctime, settings))
    .map((job) => ({
      id: job.jid,
      path: jobPath(job.jid),
      recheck: async () => {
        const now = await scanJob(read, job.jid);
        if (!now) return 'gone';
        if (now.status) return 'its status appeared meanwhile';
        return now.children.has('lock') ? 'locked' : undefined;
      },
    }));
  const batches = [...scan.batches.values()]
    .filter(
      (batch) =>
        !input.removedBatches.has(batch.bid) && isOrphanBatch(batch) && olderThanGrace(batch.ctime, settings),
    )
    .map((batch) => ({
      id: batch.bid,
      path: batchPath(batch.bid),
      recheck: async () => {
        const now = await scanBatch(read, batch.bid);
        if (!now) return 'gone';
        if (!isOrphanBatch(now)) return 'its status or jobs appeared meanwhile';
        return now.children.has('lock') ? 'locked' : undefined;
      },
    }));
  return [...jobs, ...batches];
}

async function removeOrphanIds(
  ctx: QueueContext,
  read: TreeReader,
  input: OrphanInput,
  skipped: CleanupSkip[],
): Promise<string[]> {
  const candidates = orphanCandidates(read, input);
  if (input.dryRun) return candidates.map((candidate) => candidate.id);
  const removed = await Promise.all(
    candidates.map(async (candidate) => {
      const reason = await candidate.recheck();
      if (reason === 'gone') return undefined;
      if (reason) {
        skipped.push({ item: candidate.id, path: candidate.path, reason: `orphan, but ${reason}` });
        return undefined;
      }
      await ctx.zk.deleteRecursive(candidate.path);
      return candidate.id;
    }),
  );
  return removed.filter((id) => id !== undefined);
}

function danglingRefCandidates(input: OrphanInput): { jid: string; path: string }[] {
  const { scan, index, removedBatches } = input;
  const refs: { jid: string; path: string }[] = [];
  for (const [jid, list] of index.stateRefs)
    if (!scan.jobs.has(jid)) refs.push(...list.map((ref) => ({ jid, path: ref.path })));
  for (const [jid, list] of index.batchRefs) {
    if (scan.jobs.has(jid)) continue;
    refs.push(...list.filter((ref) => !removedBatches.has(ref.bid)).map((ref) => ({ jid, path: ref.path })));
  }
  return refs;
}

async function removeDanglingRefs(
  ctx: QueueContext,
  read: TreeReader,
  input: OrphanInput,
): Promise<string[]> {
  const removed = await Promise.all(
    danglingRefCandidates(input).map(async ({ jid, path }) => {
      const [ref, job] = await Promise.all([read.stat(path), read.stat(jobPath(jid))]);
      // Refs are created with their job in one multi; a young one may belong to another tool's creation in progress.
      if (!ref || job || !olderThanGrace(ref.ctime, input.settings)) return undefined;
      if (!input.dryRun) await deleteIfPresent(ctx, path);
      return path;
    }),
  );
  return removed.filter((path) => path !== undefined);
}

async function removeDanglingUuids(
  ctx: QueueContext,
  read: TreeReader,
  input: OrphanInput,
  removedOrphans: ReadonlySet<string>,
): Promise<string[]> {
  const { scan, settings } = input;
  const dangling = scan.uuids.filter(
    ({ target, ctime }) =>
      (target === '' || !scan.batches.has(target) || removedOrphans.has(target)) &&
      olderThanGrace(ctime, settings),
  );
  const removed = await Promise.all(
    dangling.map(async ({ uuid, path, target }) => {
      // In a dry run the orphan batch it names is still there, though it would be gone.
      const skipBatch = target === '' || (input.dryRun && removedOrphans.has(target));
      const [entry, batch] = await Promise.all([
        read.data(path),
        skipBatch ? undefined : read.stat(batchPath(target)),
      ]);
      const now = entry?.data?.toString('utf8').trim() ?? '';
      if (!entry || now !== target || batch) return undefined;
      if (input.dryRun) return uuid;
      return (await deleteIfPresent(ctx, path, entry.stat.version)) ? uuid : undefined;
    }),
  );
  return removed.filter((uuid) => uuid !== undefined);
}
