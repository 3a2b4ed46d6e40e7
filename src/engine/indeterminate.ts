import { filter, firstValueFrom, timeout } from 'rxjs';
import { isZkError, type ZkClient } from '../zk/index.js';

/** True for a failure after which a write may or may not have been applied (timeout, connection loss). */
export function isIndeterminate(err: unknown): boolean {
  return isZkError(err) && err.retryable;
}

/** Waits (up to `ms`) for the session to be connected again. */
export async function connected(zk: ZkClient, ms = 15_000): Promise<boolean> {
  try {
    await firstValueFrom(
      zk.session$.pipe(
        filter((e) => e.state === 'connected'),
        timeout(ms),
      ),
    );
    return true;
  } catch {
    return false;
  }
}

export type Settled = 'applied' | 'not-applied' | 'moved-on' | 'lock-lost';

/**
 * After a commit whose outcome is unknown: re-reads the item's status once connected. One
 * version further with the expected status means the multi was applied (ours: we held the
 * lock); the same version means it was not; anything else means someone else moved it on.
 *
 * Only while the session that holds the lock lasts: once it is gone, its lock went with it and
 * another worker may have run the same step and committed the same transition, which the
 * status cannot tell from ours. The outcome then stays unknown (`lock-lost`): never claimed.
 */
export async function settle(
  zk: ZkClient,
  read: () => Promise<{ status: string; statusVersion: number }>,
  expected: { status: string; fromVersion: number; lockSessionId: string },
): Promise<Settled> {
  if (!(await connected(zk))) return 'moved-on';
  if (zk.sessionId !== expected.lockSessionId) return 'lock-lost';
  const now = await read();
  if (now.statusVersion === expected.fromVersion) return 'not-applied';
  if (now.statusVersion === expected.fromVersion + 1 && now.status === expected.status) return 'applied';
  return 'moved-on';
}
