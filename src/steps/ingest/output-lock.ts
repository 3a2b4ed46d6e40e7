import type { Logger } from 'pino';
import type { QueueContext } from '../../queue/context.js';
import { releaseEventually } from '../../queue/locks.js';
import { storageLockPath, inventoryLockPath } from '../../queue/paths.js';
import { lockObject } from '../../queue/queue-locks.js';
import { OutputError } from './output-errors.js';

const pathOf = { storage: storageLockPath, inventory: inventoryLockPath } as const;

/**
 * Runs `work` holding the ephemeral `/locks/<kind>/<ark>` (seed 002), so two jobs never store or
 * record the same object at once. A lock held by another session is not waited for: the job
 * fails with OBJECT_LOCKED (retryable) naming the holder, and an operator requeues it once the
 * other job is done. Waiting would tie up a worker for as long as the other store runs, and the
 * engine has no "try again later" outcome for a step. The lock is released however `work` ends;
 * if the session is lost meanwhile, ZooKeeper removes it and the engine aborts the step.
 */
export async function withObjectLock<T>(
  queue: QueueContext,
  kind: 'storage' | 'inventory',
  ark: string,
  log: Logger,
  work: () => Promise<T>,
): Promise<T> {
  const lock = await lockObject(queue, kind, ark);
  if (!lock) {
    const owner = (await queue.zk.exists(pathOf[kind](ark)))?.ephemeralOwner;
    throw new OutputError(
      'OBJECT_LOCKED',
      `${pathOf[kind](ark)} is held by ZooKeeper session ${owner ?? '(released just now)'}: another job is ` +
        `working on ${ark}; requeue this job once that one is done`,
      { retryable: true },
    );
  }
  try {
    return await work();
  } finally {
    // Retried once ZooKeeper answers again: the session may outlive a server restart, and a
    // lock it keeps would refuse every later job of this object.
    await releaseEventually(queue, lock);
  }
}
