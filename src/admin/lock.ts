import type { QueueContext } from '../queue/tree/context.js';
import { QueueError } from '../queue/tree/errors.js';
import { lockOwner, tryLock, type HeldLock } from '../queue/locks/lock.js';

/** How an operator action treats a lock someone else holds. */
export interface AdminOptions {
  /** Break a lock another session holds (e.g. a stale one). Requires `reason`, which is logged. */
  force?: boolean;
  reason?: string;
}

/**
 * Takes an item's lock for an operator action. When another session holds it: LOCK_HELD naming
 * the owner, or with `force`, delete that lock first. Breaking a lock also rewrites the item's
 * status (same content, new version), so the previous holder's commit, which expects the old
 * version, fails with CONFLICT instead of overwriting the operator's change.
 */
export async function takeLockForAdmin(
  ctx: QueueContext,
  itemPath: string,
  options: AdminOptions,
): Promise<HeldLock> {
  const first = await tryLock(ctx, itemPath);
  if (first.held) return first.lock;
  if (first.reason === 'gone') throw new QueueError('NOT_FOUND', `${itemPath} does not exist`, itemPath);
  const owner = await lockOwner(ctx, itemPath);
  if (!options.force) {
    throw new QueueError(
      'LOCK_HELD',
      `${itemPath} is locked by session ${owner ?? '(just released)'}; wait for it, or use --force with a reason if the lock is stale`,
      itemPath,
    );
  }
  if (!options.reason)
    throw new QueueError('BAD_REQUEST', 'breaking a lock (--force) needs a reason', itemPath);
  ctx.log.warn({ item: itemPath, owner, reason: options.reason }, 'breaking lock');
  await fenceOut(ctx, itemPath);
  const second = await tryLock(ctx, itemPath);
  if (!second.held)
    throw new QueueError('LOCK_HELD', `${itemPath} was locked again by another session`, itemPath);
  return second.lock;
}

async function fenceOut(ctx: QueueContext, itemPath: string): Promise<void> {
  const status = `${itemPath}/status`;
  const { data, stat } = await ctx.zk.getData(status);
  await ctx.zk.multi([
    { op: 'delete', path: `${itemPath}/lock` },
    { op: 'set', path: status, data: data ?? null, version: stat.version },
  ]);
}
