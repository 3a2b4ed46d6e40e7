import { describe, expect, it } from 'vitest';
import { releaseLock, tryLock } from '../../../src/queue/locks/lock.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('releasing a lock', () => {
  it('deletes the lock this session holds', async () => {
    const ctx = queueContext(await chroot.connect());
    await ctx.zk.create('/held');
    const attempt = await tryLock(ctx, '/held');
    if (!attempt.held) throw new Error('not locked');
    await releaseLock(ctx, attempt.lock);
    expect(await ctx.zk.exists('/held/lock')).toBeUndefined();
    // Released twice (a retry after a lost answer): nothing to do, no error.
    await releaseLock(ctx, attempt.lock);
  });

  it("leaves another session's lock alone when this session's earlier release was applied but its answer lost", async () => {
    const a = queueContext(await chroot.connect());
    const b = queueContext(await chroot.connect());
    await a.zk.create('/item');
    const first = await tryLock(a, '/item');
    if (!first.held) throw new Error('not locked');
    // A's release reaches the server, but A never hears back (a server failing over) ...
    await a.zk.delete('/item/lock');
    // ... B takes the item meanwhile ...
    const second = await tryLock(b, '/item');
    expect(second.held).toBe(true);
    // ... and A, connected again, retries its release.
    await releaseLock(a, first.lock);
    expect((await b.zk.exists('/item/lock'))?.ephemeralOwner).toBe(b.zk.sessionId);
  });
});
