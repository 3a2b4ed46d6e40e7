import type { Logger } from 'pino';
import type { QueueContext } from '../../queue/tree/context.js';
import { releaseEventually } from '../../queue/locks/lock.js';
import { lockObjectWaiting, objectLockPath, type ObjectLockKind } from '../../queue/locks/queue-pause.js';
import { OutputError } from '../output-errors.js';
import { DEFAULT_LOCK_WAIT_MS } from '../../config/ingest-settings.js';

const SETTING: Record<ObjectLockKind, string> = {
  storage: 'MRTQ_STORAGE_LOCK_WAIT_MS',
  inventory: 'MRTQ_INVENTORY_LOCK_WAIT_MS',
};

/** How a step waits for its object lock. */
export interface ObjectLockWait {
  signal: AbortSignal;
  log: Logger;
  /** How long to wait before failing with OBJECT_LOCKED; default DEFAULT_LOCK_WAIT_MS. */
  limitMs?: number | undefined;
}

const seconds = (ms: number): string => (ms < 10_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);

function holderOf(holder: string | undefined): string {
  if (holder === undefined) return 'was held until just now';
  if (holder === '0')
    return "is a persistent node (Merritt's storage service writes its storage lock so; delete it once no store of this object runs)";
  return `is held by ZooKeeper session ${holder}`;
}

/**
 * Runs `work` holding the ephemeral `/locks/<kind>/<ark>` (named as Merritt names it), so two
 * jobs never store or record the same object at once. While another session holds it, the step
 * waits as Merritt's storage and inventory services wait (merritt-protocols.md §1(c), §2(b)):
 * it goes on the moment the lock is deleted, stops when the step's signal aborts, and after
 * `limitMs` fails with OBJECT_LOCKED (retryable) naming the holder and the wait. The lock is
 * released however `work` ends; if the session is lost meanwhile, ZooKeeper removes it and the
 * engine aborts the step.
 */
export async function withObjectLock<T>(
  queue: QueueContext,
  kind: ObjectLockKind,
  ark: string,
  wait: ObjectLockWait,
  work: () => Promise<T>,
): Promise<T> {
  const limitMs = wait.limitMs ?? DEFAULT_LOCK_WAIT_MS[kind];
  const outcome = await lockObjectWaiting(queue, kind, ark, wait.signal, { limitMs, log: wait.log });
  if (!outcome.held) {
    throw new OutputError(
      'OBJECT_LOCKED',
      `${objectLockPath(kind, ark)} ${holderOf(outcome.holder)}: another job is working on ${ark}; ` +
        `waited ${seconds(outcome.waitedMs)} for it (${SETTING[kind]}); requeue this job once that one is done`,
      { retryable: true },
    );
  }
  try {
    return await work();
  } finally {
    // Retried once ZooKeeper answers again: the session may outlive a server restart, and a
    // lock it keeps would hold up every later job of this object.
    await releaseEventually(queue, outcome.lock);
  }
}
