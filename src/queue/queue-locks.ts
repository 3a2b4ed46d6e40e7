import { isZkError } from '../zk/index.js';
import type { QueueContext } from './context.js';
import type { HeldLock } from './locks.js';
import {
  collectionLockPath,
  inventoryLockPath,
  localIdLockPath,
  queueLockPath,
  storageLockPath,
  type QueueName,
} from './paths.js';

async function createIfMissing(ctx: QueueContext, path: string): Promise<boolean> {
  try {
    await ctx.zk.create(path);
    return true;
  } catch (err) {
    if (isZkError(err, 'NODE_EXISTS')) return false;
    throw err;
  }
}

async function deleteIfPresent(ctx: QueueContext, path: string): Promise<boolean> {
  try {
    await ctx.zk.delete(path);
    return true;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return false;
    throw err;
  }
}

/** Pauses a queue (`/locks/queue/<name>`): consumers of it acquire nothing. False when already paused. */
export const pauseQueue = (ctx: QueueContext, queue: QueueName): Promise<boolean> =>
  createIfMissing(ctx, queueLockPath(queue));
/** Resumes a paused queue. False when it was not paused. */
export const resumeQueue = (ctx: QueueContext, queue: QueueName): Promise<boolean> =>
  deleteIfPresent(ctx, queueLockPath(queue));
export const isQueuePaused = async (ctx: QueueContext, queue: QueueName): Promise<boolean> =>
  (await ctx.zk.exists(queueLockPath(queue))) !== undefined;

/** Puts a hold on a collection (`/locks/collections/<mnemonic>`): its pending batches and jobs go to held. */
export const holdCollection = (ctx: QueueContext, mnemonic: string): Promise<boolean> =>
  createIfMissing(ctx, collectionLockPath(mnemonic));
/** Removes a collection hold (held items stay held until released; see releaseCollection). */
export const clearCollectionHold = (ctx: QueueContext, mnemonic: string): Promise<boolean> =>
  deleteIfPresent(ctx, collectionLockPath(mnemonic));
export const isCollectionHeld = async (ctx: QueueContext, mnemonic: string): Promise<boolean> =>
  (await ctx.zk.exists(collectionLockPath(mnemonic))) !== undefined;

/** Kinds of object lock: storage and inventory by ark, local id by id (seed 002). */
export type ObjectLockKind = 'storage' | 'inventory' | 'localid';

const objectLockPath: Record<ObjectLockKind, (id: string) => string> = {
  storage: storageLockPath,
  inventory: inventoryLockPath,
  localid: localIdLockPath,
};

/**
 * Takes an ephemeral object lock (`/locks/storage/<ark>` …; `:` and `/` become `_`), so two jobs
 * never write the same object at once. Undefined when another session holds it.
 */
export async function lockObject(
  ctx: QueueContext,
  kind: ObjectLockKind,
  id: string,
): Promise<HeldLock | undefined> {
  const path = objectLockPath[kind](id);
  const parent = path.slice(0, path.lastIndexOf('/'));
  await ctx.zk.mkdirp(parent);
  try {
    await ctx.zk.create(path, null, 'ephemeral');
    return { path, sessionId: ctx.zk.sessionId };
  } catch (err) {
    if (isZkError(err, 'NODE_EXISTS')) return undefined;
    throw err;
  }
}
