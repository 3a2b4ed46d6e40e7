import { describe, expect, it } from 'vitest';
import { failIncompleteJob } from '../../../src/queue/jobs/incomplete.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { writeForeignBatch } from '../../support/foreign-items.js';
import { queueContext } from '../../support/queue-context.js';
import { requestsDuring } from '../../support/requests.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('failing a job that stayed without a node it needs', () => {
  it('fails it from its state, and a job noted again after that is answered moved without a lock', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { jids } = await writeForeignBatch(ctx, [{ prefix: '05', priority: '5' }]);
    const jid = jids[0]!;
    await ctx.zk.delete(`/jobs/${jid}/configuration`);

    const first = await failIncompleteJob(ctx, jid, 'pending', 2000);
    expect(first).toMatchObject({ failed: true });
    expect(await ctx.zk.getChildren('/jobs/states/failed')).toEqual([`05-${jid}`]);

    // A stale listing of pending noted it again: the second try reads its status and stops there,
    // creating no lock an operator's requeue could meet.
    const { value: again, sent } = await requestsDuring(ctx.zk, () =>
      failIncompleteJob(ctx, jid, 'pending', 2000),
    );
    expect(again).toEqual({ failed: false, reason: 'moved' });
    expect(sent).toEqual(['multiRead']);
    expect(await ctx.zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();
  });

  it('still fails a job whose status node is the one missing', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { jids } = await writeForeignBatch(ctx, [{ prefix: '05', priority: '5', status: 'Downloading' }]);
    const jid = jids[0]!;
    await ctx.zk.delete(`/jobs/${jid}/status`);
    expect(await failIncompleteJob(ctx, jid, 'downloading', 2000)).toMatchObject({ failed: true });
    expect(await ctx.zk.getChildren('/jobs/states/failed')).toContain(`05-${jid}`);
    expect(await ctx.zk.getChildren('/jobs/states/downloading')).not.toContain(`05-${jid}`);
  });
});
