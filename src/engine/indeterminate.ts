import { filter, firstValueFrom } from 'rxjs';
import { isZkError, type ZkClient } from '../zk/index.js';

/** True for a failure after which a write may or may not have been applied (timeout, connection loss). */
export function isIndeterminate(err: unknown): boolean {
  return isZkError(err) && err.retryable;
}

/**
 * Waits until ZooKeeper answers again: the id of the session then connected, or undefined once
 * the client is closed. No deadline of its own: while the server is away, a session that outlives
 * the outage keeps its lock (and the outcome is worth waiting for), and one that does not is
 * replaced once the server is back (a new id). Giving up earlier would guess.
 */
async function reconnected(zk: ZkClient): Promise<string | undefined> {
  const event = await firstValueFrom(
    zk.session$.pipe(filter((e) => e.state === 'connected' || e.state === 'closed')),
    { defaultValue: undefined },
  );
  return event?.state === 'connected' ? event.sessionId : undefined;
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
 * So it stays when the client is closed (shutting down) before ZooKeeper answers.
 */
export async function settle(
  zk: ZkClient,
  read: () => Promise<{ status: string; statusVersion: number }>,
  expected: { status: string; fromVersion: number; lockSessionId: string },
): Promise<Settled> {
  let now: { status: string; statusVersion: number } | undefined;
  while (now === undefined) {
    const session = await reconnected(zk);
    if (session !== expected.lockSessionId || zk.sessionId !== expected.lockSessionId) return 'lock-lost';
    try {
      now = await read();
    } catch (err) {
      // The link dropped again before the answer: ask again once it is back.
      if (!isIndeterminate(err)) throw err;
    }
  }
  if (now.statusVersion === expected.fromVersion) return 'not-applied';
  if (now.statusVersion === expected.fromVersion + 1 && now.status === expected.status) return 'applied';
  return 'moved-on';
}
