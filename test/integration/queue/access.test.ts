import { beforeAll, describe, expect, it } from 'vitest';
import {
  acquireAccess,
  commitAccessTransition,
  createAccess,
  loadAccess,
} from '../../../src/queue/access/requests.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('the access queue', () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('runs requests pending -> processing -> completed|failed, and a failed one can be requeued', async () => {
    const first = await createAccess(ctx, 'small', { token: 'tok-1', 'cloud-content-byte': 1024 });
    const second = await createAccess(ctx, 'small', { token: 'tok-2' });
    expect(
      JSON.parse((await ctx.zk.getData(`/access/small/${first}/status`)).data!.toString()),
    ).toMatchObject({
      status: 'Pending',
    });

    const a = (await acquireAccess(ctx, 'small'))!;
    expect(a.request).toMatchObject({ accessId: first, status: 'pending', token: { token: 'tok-1' } });
    const processing = await commitAccessTransition(ctx, a, { type: 'access.acquired' }, { release: false });
    await commitAccessTransition(ctx, { request: processing, lock: a.lock }, { type: 'assemble.done' });
    expect((await loadAccess(ctx, 'small', first)).status).toBe('completed');

    const b = (await acquireAccess(ctx, 'small'))!;
    expect(b.request.accessId).toBe(second);
    const running = await commitAccessTransition(ctx, b, { type: 'access.acquired' }, { release: false });
    await commitAccessTransition(
      ctx,
      { request: running, lock: b.lock },
      { type: 'assemble.failed', message: 'no space' },
    );
    const failed = await loadAccess(ctx, 'small', second);
    expect(failed).toMatchObject({ status: 'failed', message: 'no space' });
    expect(await acquireAccess(ctx, 'small')).toBeUndefined();

    const lock = await tryLock(ctx, `/access/small/${second}`);
    if (!lock.held) throw new Error('expected to lock');
    await commitAccessTransition(ctx, { request: failed, lock: lock.lock }, { type: 'admin.requeue' });
    // Back to pending, as mrt-admin's Requeue writes it: any consumer of the queue takes it again.
    expect((await loadAccess(ctx, 'small', second)).status).toBe('pending');
    expect((await acquireAccess(ctx, 'small'))?.request.accessId).toBe(second);
  });

  it('refuses an event the access machine does not allow', async () => {
    const qid = await createAccess(ctx, 'large', { token: 'tok-3' });
    const acquired = (await acquireAccess(ctx, 'large'))!;
    expect(acquired.request.accessId).toBe(qid);
    await expect(commitAccessTransition(ctx, acquired, { type: 'assemble.done' })).rejects.toMatchObject({
      code: 'INVALID_TRANSITION',
    });
  });
});
