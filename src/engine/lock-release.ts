import { filter, first } from 'rxjs';
import type { Logger } from 'pino';
import type { QueueContext } from '../queue/context.js';
import { releaseLock, type HeldLock } from '../queue/locks.js';
import { isZkError } from '../zk/index.js';

/**
 * Releases a lock whose step ended without a commit. When ZooKeeper cannot be reached right now
 * (a server restart, a partition), the release is retried once the same session is connected
 * again: a session that survives keeps its ephemeral locks, and a lock nobody releases would
 * block its item for as long as this process lives. A new session has lost the lock anyway.
 */
export async function releaseEventually(queue: QueueContext, lock: HeldLock, log: Logger): Promise<void> {
  try {
    await releaseLock(queue, lock);
  } catch (err) {
    if (!isZkError(err) || !err.retryable) {
      log.warn({ lock: lock.path, err }, 'could not release lock');
      return;
    }
    log.warn({ lock: lock.path }, 'lock release deferred until ZooKeeper answers again');
    queue.zk.session$
      .pipe(
        filter((event) => event.state === 'connected' || event.state === 'closed'),
        first(),
      )
      .subscribe((event) => {
        if (event.state === 'connected' && event.sessionId === lock.sessionId)
          void releaseEventually(queue, lock, log);
      });
  }
}
