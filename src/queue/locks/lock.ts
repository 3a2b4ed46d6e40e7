import { filter, first } from 'rxjs';
import { ZkError, isZkError, type Op } from '../../zk/index.js';
import { commitOps, type QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';

/** An ephemeral `lock` node this process created, and the session it belongs to. */
export interface HeldLock {
  path: string;
  sessionId: string;
  /**
   * Writes that go with the lock's release when it is let go without a commit, in the same multi
   * (a job's step attempt marked as handed back: see job-attempts.ts). A commit that releases the
   * lock does not make them.
   */
  releaseOps?: () => Op[];
  /**
   * Called once a new session has replaced the one the lock belonged to, when the lock was to be
   * let go without a commit: the lock went with its session, and what the release would have
   * written may still be written, if nobody has taken the item since (a job's attempt marked as
   * ended by ZooKeeper's absence rather than by its process: see step-attempts.ts).
   */
  onLost?: () => Promise<void>;
}

export type LockAttempt = { held: true; lock: HeldLock } | { held: false; reason: 'locked' | 'gone' };

/** What `sessionId` reads while a replacement session is still connecting. */
const NO_SESSION = '0';

/**
 * Creates the ephemeral `<item>/lock`. Expected outcomes are values: `locked` when another
 * session holds it, `gone` when the item no longer exists. Rejects with a retryable
 * CONNECTION_LOSS, sending nothing, while there is no session: the create would wait for the
 * next session and be made by it, so the lock would be named after none, could never commit
 * and would never be released (the item stuck for that session's lifetime).
 */
export function tryLock(ctx: QueueContext, itemPath: string): Promise<LockAttempt> {
  return createLockNode(ctx, `${itemPath}/lock`);
}

/**
 * Creates the ephemeral lock node `path` (an item's `lock`, or one under `/locks`), as
 * {@link tryLock} describes: `gone` when its parent does not exist.
 */
export async function createLockNode(ctx: QueueContext, path: string): Promise<LockAttempt> {
  const sessionId = ctx.zk.sessionId;
  if (sessionId === NO_SESSION) {
    throw new ZkError('CONNECTION_LOSS', {
      operation: 'create',
      path,
      message: `create ${path}: CONNECTION_LOSS, no ZooKeeper session (a new one is connecting); not sent`,
    });
  }
  try {
    // With the engine's group commit, with the other locks and transitions of this turn.
    if (ctx.commits) await ctx.commits.commit([{ op: 'create', path, mode: 'ephemeral' }]);
    else await ctx.zk.create(path, null, 'ephemeral');
  } catch (err) {
    if (isZkError(err, 'NODE_EXISTS')) return { held: false, reason: 'locked' };
    if (isZkError(err, 'NO_NODE')) return { held: false, reason: 'gone' };
    if (isZkError(err) && err.retryable) dropIfCreated(ctx, path, sessionId);
    throw err;
  }
  // A group goes out a moment later: should a new session have taken over meanwhile, the lock is
  // that session's, named after none this process holds: let it go rather than keep it unknown.
  if (ctx.zk.sessionId !== sessionId) {
    void releaseEventually(ctx, { path, sessionId: ctx.zk.sessionId });
    throw new ZkError('CONNECTION_LOSS', {
      operation: 'create',
      path,
      message: `create ${path}: CONNECTION_LOSS, the ZooKeeper session changed while the lock was made; released`,
    });
  }
  return { held: true, lock: { path, sessionId } };
}

/**
 * A create whose answer was lost may still have made the lock: once the same session answers
 * again, delete the lock if it is ours, or it would block the item for the session's lifetime.
 */
function dropIfCreated(ctx: QueueContext, path: string, sessionId: string): void {
  ctx.zk.session$
    .pipe(
      filter((event) => event.state === 'connected' || event.state === 'closed'),
      first(),
    )
    .subscribe((event) => {
      if (event.state === 'connected' && event.sessionId === sessionId)
        void releaseEventually(ctx, { path, sessionId });
    });
}

/**
 * Releases a lock whose work ended without a commit; never throws. When ZooKeeper cannot be
 * reached right now (a server restart, a partition), the release is retried once the same
 * session is connected again: a session that survives keeps its ephemeral locks, and a lock
 * nobody releases would block its item for as long as this process lives. A new session has
 * lost the lock anyway.
 */
export async function releaseEventually(ctx: QueueContext, lock: HeldLock): Promise<void> {
  try {
    await releaseLock(ctx, lock);
  } catch (err) {
    if (!isZkError(err) || !err.retryable) {
      ctx.log.warn({ lock: lock.path, err }, 'could not release lock');
      return;
    }
    ctx.log.warn({ lock: lock.path }, 'lock release deferred until ZooKeeper answers again');
    ctx.zk.session$
      .pipe(
        filter((event) => event.state === 'connected' || event.state === 'closed'),
        first(),
      )
      .subscribe((event) => {
        if (event.state !== 'connected') return;
        if (event.sessionId === lock.sessionId) void releaseEventually(ctx, lock);
        else lostLock(ctx, lock);
      });
  }
}

/** Tells a lock whose session is gone (see HeldLock.onLost); never throws. */
function lostLock(ctx: QueueContext, lock: HeldLock): void {
  const onLost = lock.onLost;
  lock.onLost = undefined;
  void onLost?.().catch((err: unknown) =>
    ctx.log.debug({ lock: lock.path, err }, 'could not note a lost lock'),
  );
}

/**
 * Runs `use` on an item whose lock was just taken: if it throws (a lost connection while the item
 * is read, say), the lock is released (eventually, see releaseEventually) and the error rethrown.
 */
export async function releasingOnError<T>(
  ctx: QueueContext,
  lock: HeldLock,
  use: () => Promise<T>,
): Promise<T> {
  try {
    return await use();
  } catch (err) {
    await releaseEventually(ctx, lock);
    throw err;
  }
}

/**
 * Deletes a lock this session holds; a lock already gone (session lost) is not an error, and a
 * lock another session holds now is left alone. That happens when an earlier release was
 * applied but its answer lost (a server failing over): another engine may have taken the item
 * since, and a blind retry would delete its lock, letting a third take the item while it works.
 * One session's requests are applied in order, so the owner read here already reflects any
 * earlier release of this session.
 */
export async function releaseLock(ctx: QueueContext, lock: HeldLock): Promise<void> {
  if (ctx.zk.sessionId !== lock.sessionId) {
    if (ctx.zk.sessionId !== NO_SESSION) lostLock(ctx, lock);
    return;
  }
  // Read and written with the engine's merged reads and group commit when it has them: a
  // one-file object lets go of two object locks, each a read and a delete of its own otherwise.
  const [node] = await ctx.zk.getDataMany([lock.path]);
  const stat = node?.stat;
  if (stat?.ephemeralOwner !== lock.sessionId) return;
  const writes = lock.releaseOps?.() ?? [];
  if (writes.length > 0) {
    const ops: Op[] = [
      { op: 'check', path: lock.path, version: stat.version },
      ...writes,
      { op: 'delete', path: lock.path, version: stat.version },
    ];
    try {
      await commitOps(ctx, ops);
      return;
    } catch (err) {
      if (isZkError(err) && err.retryable) throw err;
      // Refused (a node they write is gone): the lock goes without them, never stays held.
      ctx.log.warn({ lock: lock.path, err }, 'lock released without the writes that go with it');
    }
  }
  try {
    await commitOps(ctx, [{ op: 'delete', path: lock.path, version: stat.version }]);
  } catch (err) {
    if (!isZkError(err, 'NO_NODE')) throw err;
  }
}

/**
 * Fails with LOCK_LOST when the lock was created by an earlier session: its ephemeral node is
 * gone (or about to be) and someone else may own the item now. Checked before every commit;
 * the commit's multi then checks that the lock node still exists.
 */
export function assertSameSession(ctx: QueueContext, lock: HeldLock): void {
  if (ctx.zk.sessionId !== lock.sessionId) {
    throw new QueueError(
      'LOCK_LOST',
      `lock ${lock.path} belonged to session ${lock.sessionId}, which is gone (now ${ctx.zk.sessionId}); nothing committed`,
      lock.path,
    );
  }
}

/** Who holds `<item>/lock`: the owner's session id, or undefined when it is free. */
export async function lockOwner(ctx: QueueContext, itemPath: string): Promise<string | undefined> {
  const stat = await ctx.zk.exists(`${itemPath}/lock`);
  return stat ? stat.ephemeralOwner : undefined;
}
