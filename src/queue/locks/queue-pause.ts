import type { Logger } from 'pino';
import { isZkError } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import type { HeldLock } from './lock.js';
import {
  COLLECTION_LOCKS,
  collectionLockPath,
  inventoryLockPath,
  queueLockPath,
  storageLockPath,
  type QueueName,
} from '../tree/paths.js';
import { takeWaitingLock, type WaitingLockOutcome } from './waiting.js';

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

/** The collections on hold, sorted; none when the holds folder is missing (a tree another tool made). */
export async function heldCollections(ctx: QueueContext): Promise<string[]> {
  try {
    return (await ctx.zk.getChildren(COLLECTION_LOCKS)).sort();
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** Kinds of object lock, each named by an ark (paths.ts, objectLockName). */
export type ObjectLockKind = 'storage' | 'inventory';

/** `/locks/storage/<ark>` or `/locks/inventory/<ark>`, as Merritt names them. */
export const objectLockPath = (kind: ObjectLockKind, ark: string): string =>
  kind === 'storage' ? storageLockPath(ark) : inventoryLockPath(ark);

/**
 * Merritt's pause between attempts at an object lock: its storage service retries every 30 s,
 * its inventory service every 10 s (merritt-protocols.md §1(c), §2(b)).
 */
const MERRITT_RETRY_MS: Record<ObjectLockKind, number> = { storage: 30_000, inventory: 10_000 };

/**
 * Takes the ephemeral object lock of `ark` at once, so two jobs never write the same object at
 * once. Undefined when another session holds it.
 */
export async function lockObject(
  ctx: QueueContext,
  kind: ObjectLockKind,
  ark: string,
): Promise<HeldLock | undefined> {
  const outcome = await takeWaitingLock(ctx, objectLockPath(kind, ark), new AbortController().signal, {
    maxPauseMs: MERRITT_RETRY_MS[kind],
    limitMs: 0,
  });
  return outcome.held ? outcome.lock : undefined;
}

/**
 * Takes the ephemeral object lock of `ark`, waiting while another session holds it as Merritt's
 * storage and inventory services wait (retried on the node's deletion, and after pauses up to
 * Merritt's interval), for at most `limitMs`; then the holder is returned (see takeWaitingLock).
 */
export function lockObjectWaiting(
  ctx: QueueContext,
  kind: ObjectLockKind,
  ark: string,
  signal: AbortSignal,
  wait: { limitMs: number; log?: Logger; firstPauseMs?: number },
): Promise<WaitingLockOutcome> {
  return takeWaitingLock(ctx, objectLockPath(kind, ark), signal, {
    maxPauseMs: MERRITT_RETRY_MS[kind],
    ...wait,
  });
}
