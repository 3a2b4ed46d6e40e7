import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { releaseEventually, type HeldLock } from './lock.js';
import { localIdLockPath } from '../tree/paths.js';
import { takeWaitingLock } from './waiting.js';

/** Runs work holding the ephemeral local-id locks of a job. */
export interface LocalIdLock {
  /**
   * Takes `/locks/localid/<localid_owner>` (paths.ts, localIdLockName) for each local id (in name
   * order, so two jobs never wait for each other), waiting while another session holds one, runs
   * `work`, and releases them however it ends. Rejects with the signal's reason when it is
   * aborted while waiting.
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

/**
 * The local-id lock of one queue context (one ZooKeeper session). Merritt's ingest waits for it
 * without limit (merritt-protocols.md §3), and so does this one: until it is free or the step's
 * signal aborts.
 */
export function createLocalIdLock(ctx: QueueContext, options: LocalIdLockOptions = {}): LocalIdLock {
  const waiting = { firstPauseMs: options.firstWaitMs ?? 200, maxPauseMs: options.maxWaitMs ?? 15_000 };
  return {
    async hold(localIds, owner, signal, work) {
      const paths = [...new Set(localIds.map((id) => localIdLockPath(id, owner)))].sort();
      const held: HeldLock[] = [];
      try {
        for (const path of paths) {
          const outcome = await takeWaitingLock(ctx, path, signal, waiting);
          // Without a limit the wait ends only with the lock or the signal's rejection.
          if (!outcome.held)
            throw new QueueError('LOCK_HELD', `${path} is held by session ${outcome.holder}`, path);
          held.push(outcome.lock);
        }
        return await work();
      } finally {
        // Retried once ZooKeeper answers again; a lost session has dropped the ephemerals anyway.
        for (const lock of held.reverse()) await releaseEventually(ctx, lock);
      }
    },
  };
}
