import { describe, expect, it } from 'vitest';
import { releaseLock, tryLock } from '../../../src/queue/locks/lock.js';
import { GroupCommit } from '../../../src/zk/group-commit.js';
import type { ZkClient } from '../../../src/zk/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

// Alone, and as the engine releases: the owner read merged with other reads, the delete sent
// with the group commit.
const contexts: Array<[string, string, (zk: ZkClient) => QueueContext]> = [
  ['alone', '/alone', (zk) => queueContext(zk)],
  ['with the group commit', '/grouped', (zk) => ({ ...queueContext(zk), commits: new GroupCommit(zk) })],
];

describe.each(contexts)('releasing a lock (%s)', (_name, under, contextOf) => {
  it('deletes the lock this session holds', async () => {
    const ctx = contextOf(await chroot.connect());
    await ctx.zk.mkdirp(`${under}/held`);
    const attempt = await tryLock(ctx, `${under}/held`);
    if (!attempt.held) throw new Error('not locked');
    await releaseLock(ctx, attempt.lock);
    expect(await ctx.zk.exists(`${under}/held/lock`)).toBeUndefined();
    // Released twice (a retry after a lost answer): nothing to do, no error.
    await releaseLock(ctx, attempt.lock);
  });

  it("leaves another session's lock alone when this session's earlier release was applied but its answer lost", async () => {
    const a = contextOf(await chroot.connect());
    const b = contextOf(await chroot.connect());
    await a.zk.mkdirp(`${under}/item`);
    const first = await tryLock(a, `${under}/item`);
    if (!first.held) throw new Error('not locked');
    // A's release reaches the server, but A never hears back (a server failing over) ...
    await a.zk.delete(`${under}/item/lock`);
    // ... B takes the item meanwhile ...
    const second = await tryLock(b, `${under}/item`);
    expect(second.held).toBe(true);
    // ... and A, connected again, retries its release.
    await releaseLock(a, first.lock);
    expect((await b.zk.exists(`${under}/item/lock`))?.ephemeralOwner).toBe(b.zk.sessionId);
  });
});
