import { isZkError } from '../zk/index.js';
import type { QueueContext } from './context.js';
import { releaseEventually, type HeldLock } from './locks.js';
import { LOCKS } from './paths.js';

/** `/locks/localid`: where Merritt's ingest serialises jobs that carry the same new local id. */
export const LOCAL_ID_LOCKS = `${LOCKS}/localid`;

/**
 * The lock's name as Merritt's ingest makes it (merritt-protocols.md §3): `localid + "_" + owner`,
 * then mrt-zk's `lid.replaceAll(":?/", "_")`: every `/`, with a `:` just before it, becomes one
 * `_` (`ark:/13030/j2rn30xp` → `ark_13030_j2rn30xp`). Byte for byte, so that this engine and
 * Merritt's ingest wait for each other's locks. No owner reads as the empty string.
 */
export function localIdLockName(localId: string, owner: string | undefined): string {
  return `${localId}_${owner ?? ''}`.replace(/:?\//g, '_');
}

/** `/locks/localid/<name>`. */
export const localIdLockPathOf = (localId: string, owner: string | undefined): string =>
  `${LOCAL_ID_LOCKS}/${localIdLockName(localId, owner)}`;

/** Runs work holding the ephemeral local-id locks of a job. */
export interface LocalIdLock {
  /**
   * Takes `/locks/localid/<localid_owner>` for each local id (in name order, so two jobs never
   * wait for each other), waiting while another session holds one, runs `work`, and releases
   * them however it ends. Rejects with the signal's reason when it is aborted while waiting.
   */
  hold<T>(
    localIds: string[],
    owner: string | undefined,
    signal: AbortSignal,
    work: () => Promise<T>,
  ): Promise<T>;
}

export interface LocalIdLockOptions {
  /** First pause while the lock is held elsewhere (default 200 ms), doubled up to `maxWaitMs`. */
  firstWaitMs?: number;
  /** Longest pause between attempts (default 15 s, Merritt's fixed pause). */
  maxWaitMs?: number;
}

/** Creates the lock node; false when another session holds it. */
async function tryCreate(ctx: QueueContext, path: string): Promise<HeldLock | undefined> {
  const sessionId = ctx.zk.sessionId;
  try {
    await ctx.zk.create(path, null, 'ephemeral');
    return { path, sessionId };
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) {
      await ctx.zk.mkdirp(LOCAL_ID_LOCKS);
      return tryCreate(ctx, path);
    }
    if (!isZkError(err, 'NODE_EXISTS')) throw err;
  }
  // Ours already, when an earlier create was applied but its answer lost.
  const stat = await ctx.zk.exists(path);
  return stat?.ephemeralOwner === sessionId ? { path, sessionId } : undefined;
}

/** Waits `ms`, or less when the lock node goes away (a watch) or the signal aborts. */
function pause(ctx: QueueContext, path: string, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve();
    };
    const aborted = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', aborted, { once: true });
    ctx.zk.exists(path, done).then((stat) => !stat && done(), done);
  });
}

async function acquire(
  ctx: QueueContext,
  path: string,
  signal: AbortSignal,
  options: Required<LocalIdLockOptions>,
): Promise<HeldLock> {
  for (let wait = options.firstWaitMs; ; wait = Math.min(wait * 2, options.maxWaitMs)) {
    signal.throwIfAborted();
    const lock = await tryCreate(ctx, path);
    if (lock) return lock;
    ctx.log.info({ lock: path, waitMs: wait }, 'local id locked by another job; waiting');
    await pause(ctx, path, wait, signal);
  }
}

/** The local-id lock of one queue context (one ZooKeeper session). */
export function createLocalIdLock(ctx: QueueContext, options: LocalIdLockOptions = {}): LocalIdLock {
  const settled = { firstWaitMs: 200, maxWaitMs: 15_000, ...options };
  return {
    async hold(localIds, owner, signal, work) {
      const paths = [...new Set(localIds.map((id) => localIdLockPathOf(id, owner)))].sort();
      const held: HeldLock[] = [];
      try {
        for (const path of paths) held.push(await acquire(ctx, path, signal, settled));
        return await work();
      } finally {
        // Retried once ZooKeeper answers again; a lost session has dropped the ephemerals anyway.
        for (const lock of held.reverse()) await releaseEventually(ctx, lock);
      }
    },
  };
}
