import { describe, expect, it } from 'vitest';
import { StallGuard } from '../../../src/engine/stall-guard.js';
import { StepAbortedError } from '../../../src/engine/step-runner.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

/** Blocks the event loop, as a frozen or descheduled process would experience it. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** A node at `path` locked by a fresh session, and the number of requests that session has made. */
async function lockedNode(path: string) {
  let requests = 0;
  const zk = await chroot.connect();
  zk.observeRequests(() => requests++);
  await zk.create(path);
  const attempt = await tryLock(queueContext(zk), path);
  if (!attempt.held) throw new Error('lock not taken');
  return { zk, lock: attempt.lock, requests: () => requests };
}

describe('the stall guard before a step starts', () => {
  it('asks nothing while the loop turns, and checks the lock afresh after a stall', async () => {
    const { zk, lock, requests } = await lockedNode('/item');
    const guard = new StallGuard(zk);
    try {
      await new Promise((r) => setTimeout(r, 250));
      const before = requests();
      await guard.beforeStep(lock);
      expect(requests()).toBe(before); // no stall, no request

      stall(1200);
      await guard.beforeStep(lock); // still ours: the step may start
      expect(requests()).toBe(before + 1);

      await zk.delete(lock.path); // gone, as when the session expired meanwhile
      stall(1200);
      await expect(guard.beforeStep(lock)).rejects.toBeInstanceOf(StepAbortedError);
    } finally {
      guard.stop();
    }
  });

  it('still checks a step that starts after the loop has ticked again: a thaw may run timers before stale answers', async () => {
    const { zk, lock, requests } = await lockedNode('/thawed');
    const guard = new StallGuard(zk, { stallMs: 1000, afterStallMs: 1500 });
    try {
      await zk.delete(lock.path); // the session expired while the process was frozen
      stall(1200);
      await new Promise((r) => setTimeout(r, 250)); // the tick runs first, the stale answer after it
      const before = requests();
      await expect(guard.beforeStep(lock)).rejects.toBeInstanceOf(StepAbortedError);
      expect(requests()).toBe(before + 1);

      await new Promise((r) => setTimeout(r, 1600)); // long after the stall: no more checks
      const later = requests();
      await guard.beforeStep(lock);
      expect(requests()).toBe(later);
    } finally {
      guard.stop();
    }
  });
});
