import { beforeAll, describe, expect, it } from 'vitest';
import { acquireBatch } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { acquireJob } from '../../../src/queue/jobs/acquire.js';
import { createJobs, type JobSpec } from '../../../src/queue/jobs/create.js';
import { commitJobTransition } from '../../../src/queue/jobs/transition.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

function spec(position: number): JobSpec {
  return {
    position,
    configuration: {
      profile_name: 'merritt_demo_content',
      submitter: 'depositor',
      payload_url: `https://example.org/object-${position}.checkm`,
      payload_type: 'object_manifest',
    },
  };
}

async function newBatchWithJobs(ctx: QueueContext, count: number): Promise<{ bid: string; jids: string[] }> {
  const { bid } = await createBatch(ctx, {
    profile_name: 'merritt_demo_content',
    submitter: 'depositor',
    payload_url: 'https://example.org/batch.checkm',
    type: 'batch-manifest',
  });
  const acquired = await acquireBatch(ctx, 'expand', { candidates: [bid] });
  expect(acquired).toBeDefined();
  await commitBatchTransition(ctx, acquired!, { type: 'batch.acquired' }, { release: false });
  const { created } = await createJobs(
    ctx,
    bid,
    Array.from({ length: count }, (_, i) => spec(i)),
  );
  return { bid, jids: created.map((c) => c.jid) };
}

describe('job transitions are atomic and fenced by the lock', () => {
  let ctx: QueueContext;
  let other: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('a transition whose lock was deleted commits nothing', async () => {
    const { jids } = await newBatchWithJobs(ctx, 1);
    const acquired = (await acquireJob(ctx, 'pending', { skip: (jid) => !jids.includes(jid) }))!;
    await ctx.zk.delete(acquired.lock.path);
    await expect(commitJobTransition(ctx, acquired, { type: 'job.acquired' })).rejects.toMatchObject({
      code: 'LOCK_LOST',
    });
    const job = await loadJob(ctx, jids[0]!);
    expect(job.status).toBe('pending');
    expect(job.statusVersion).toBe(acquired.job.statusVersion);
    expect(await ctx.zk.exists(`/jobs/states/pending/05-${jids[0]}`)).toBeDefined();
    expect(await ctx.zk.exists(`/jobs/states/estimating/05-${jids[0]}`)).toBeUndefined();
  });

  it('a transition whose lock is owned by another session commits nothing', async () => {
    const { jids } = await newBatchWithJobs(ctx, 1);
    const jid = jids[0]!;
    const acquired = (await acquireJob(ctx, 'pending', { skip: (j) => j !== jid }))!;
    // Another session breaks the lock the way an operator's --force does (it bumps the status
    // version) and takes the job itself.
    await other.zk.delete(acquired.lock.path);
    await other.zk.create(acquired.lock.path, null, 'ephemeral');
    const { data, stat } = await other.zk.getData(`/jobs/${jid}/status`);
    await other.zk.setData(`/jobs/${jid}/status`, data ?? null, stat.version);
    await expect(commitJobTransition(ctx, acquired, { type: 'job.acquired' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect((await loadJob(ctx, jid)).status).toBe('pending');
  });

  it('two transitions racing on the same status version commit exactly once', async () => {
    const { jids } = await newBatchWithJobs(ctx, 1);
    const jid = jids[0]!;
    const acquired = (await acquireJob(ctx, 'pending', { skip: (j) => j !== jid }))!;
    const results = await Promise.allSettled([
      commitJobTransition(ctx, acquired, { type: 'job.acquired' }, { release: false }),
      commitJobTransition(ctx, acquired, { type: 'job.held' }, { release: false }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected');
    expect((rejected as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
    const job = await loadJob(ctx, jid);
    const refs = [
      await ctx.zk.exists(`/jobs/states/estimating/05-${jid}`),
      await ctx.zk.exists(`/jobs/states/held/05-${jid}`),
      await ctx.zk.exists(`/jobs/states/pending/05-${jid}`),
    ];
    expect(refs.filter(Boolean)).toHaveLength(1);
    expect(['estimating', 'held']).toContain(job.status);
  });

  it('an event the machine refuses is INVALID_TRANSITION naming state and event', async () => {
    const { jids } = await newBatchWithJobs(ctx, 1);
    const jid = jids[0]!;
    const acquired = (await acquireJob(ctx, 'pending', { skip: (j) => j !== jid }))!;
    const error = await commitJobTransition(ctx, acquired, { type: 'record.done' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_TRANSITION' });
    expect((error as Error).message).toContain('"record.done" is not allowed for a job in state pending');
  });

  it('estimating moves the ref to the new priority and writes space_needed in the same multi', async () => {
    const { bid, jids } = await newBatchWithJobs(ctx, 1);
    const jid = jids[0]!;
    let acquired = (await acquireJob(ctx, 'pending', { skip: (j) => j !== jid }))!;
    await commitJobTransition(ctx, acquired, { type: 'job.acquired' });
    acquired = (await acquireJob(ctx, 'estimating', { skip: (j) => j !== jid }))!;
    const { job } = await commitJobTransition(ctx, acquired, {
      type: 'estimate.done',
      spaceNeeded: 1_000_000_000,
      priority: 10,
    });
    expect(job).toMatchObject({ status: 'provisioning', priority: 10, lastSuccessfulStatus: 'estimating' });
    expect(await ctx.zk.exists(`/jobs/states/provisioning/10-${jid}`)).toBeDefined();
    expect(await ctx.zk.exists(`/jobs/states/estimating/05-${jid}`)).toBeUndefined();
    const stored = await loadJob(ctx, jid);
    expect(stored).toMatchObject({ priority: 10, spaceNeeded: 1_000_000_000, status: 'provisioning' });
    expect(await ctx.zk.exists(`/batches/${bid}/states/batch-processing/${jid}`)).toBeDefined();
    expect(await ctx.zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();
  });
});
