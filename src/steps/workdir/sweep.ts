import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { QueueContext } from '../../queue/tree/context.js';
import { isBatchId, isJobId, jobChild, jobPath } from '../../queue/tree/paths.js';
import { decodeJsonObject } from '../../queue/tree/wire.js';
import { isZkError } from '../../zk/index.js';

/**
 * Working directories nothing will use again. The completed step removes a job's directory right
 * after its commit; an engine killed in between leaves it (the payload inside) for good. So does a
 * batch cleaned up or deleted while a directory of one of its jobs was still there. This finds
 * them under `<workRoot>/<bid>/<jid>`: the job is in a final state (completed, deleted) or no
 * longer in ZooKeeper. A failed job keeps its directory (a requeue resumes from it); so does a job
 * whose status cannot be read (nothing can be said of it), and any directory younger than the
 * grace period (a step may be writing it).
 */

export interface LeftoverWorkDir {
  dir: string;
  bid: string;
  jid: string;
  /** Why it is left over: `completed`, `deleted`, or `job unknown to ZooKeeper`. */
  reason: string;
}

export interface WorkDirSweepOptions {
  workRoot: string;
  /** Directories modified within this are kept (default 10 minutes). */
  graceMs?: number;
  now?: number;
}

const DEFAULT_GRACE_MS = 10 * 60_000;

async function childDirs(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && keep(e.name)).map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Why the job's directory is no longer needed; undefined while it may be. */
async function leftoverReason(queue: QueueContext, jid: string): Promise<string | undefined> {
  let data;
  try {
    data = (await queue.zk.getData(jobChild(jid, 'status'))).data;
  } catch (err) {
    if (!isZkError(err, 'NO_NODE')) throw err;
    // No status: gone altogether, or still being written by another tool.
    return (await queue.zk.exists(jobPath(jid))) ? undefined : 'job unknown to ZooKeeper';
  }
  try {
    const written = decodeJsonObject(jobChild(jid, 'status'), data).status;
    const state = typeof written === 'string' ? queue.lifecycle.parse(written) : undefined;
    return state !== undefined && queue.lifecycle.isFinal(state) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** The leftover working directories under `workRoot`, oldest layout first (by batch, then job). */
export async function findLeftoverWorkDirs(
  queue: QueueContext,
  options: WorkDirSweepOptions,
): Promise<LeftoverWorkDir[]> {
  const { workRoot } = options;
  const cutoff = (options.now ?? Date.now()) - (options.graceMs ?? DEFAULT_GRACE_MS);
  const found: LeftoverWorkDir[] = [];
  for (const bid of (await childDirs(workRoot, isBatchId)).sort()) {
    for (const jid of (await childDirs(join(workRoot, bid), isJobId)).sort()) {
      const dir = join(workRoot, bid, jid);
      const modified = await stat(dir).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (modified === undefined || modified > cutoff) continue;
      const reason = await leftoverReason(queue, jid);
      if (reason) found.push({ dir, bid, jid, reason });
    }
  }
  return found;
}

/** Removes the leftover working directories (and batch directories left empty); returns what went. */
export async function removeLeftoverWorkDirs(
  queue: QueueContext,
  options: WorkDirSweepOptions,
): Promise<LeftoverWorkDir[]> {
  const leftovers = await findLeftoverWorkDirs(queue, options);
  for (const { dir } of leftovers) await rm(dir, { recursive: true, force: true });
  for (const bid of new Set(leftovers.map((l) => l.bid))) {
    await rmdir(join(options.workRoot, bid)).catch(() => undefined); // other jobs' directories remain
  }
  return leftovers;
}
