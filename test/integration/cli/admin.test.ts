import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { acquireJob } from '../../../src/queue/jobs/acquire.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveBatch, driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('operator commands', () => {
  let ctx: QueueContext;
  const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('hold, release, requeue and delete jobs, with exit codes that say what went wrong', async () => {
    const { jids } = await expandedBatch(ctx, [objectSpec(0), objectSpec(1)]);
    const [a, b] = jids as [string, string];
    expect(await mrtq('hold', a)).toMatchObject({ code: 0, stdout: `${a} held\n` });
    const again = await mrtq('hold', a);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('"admin.hold" is not allowed for a job in state held');
    expect((await mrtq('release', a, '--json')).stdout).toBe(
      `${JSON.stringify({ id: a, status: 'pending' })}\n`,
    );

    await driveJob(ctx, b, [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 1 },
      { type: 'provision.done' },
      { type: 'download.failed', message: '404' },
    ]);
    expect(await mrtq('requeue', b)).toMatchObject({ code: 0, stdout: `${b} downloading\n` });
    expect((await loadJob(ctx, b)).retryCount).toBe(1);

    expect((await mrtq('hold', a)).code).toBe(0);
    expect((await mrtq('delete', a)).code).toBe(2); // a delete needs its reason
    expect(await mrtq('delete', a, '--reason', 'duplicate')).toMatchObject({
      code: 0,
      stdout: `${a} deleted\n`,
    });

    expect((await mrtq('requeue', 'jid9999999999')).code).toBe(7);
    const wrongKind = await mrtq('requeue', 'bid0000000000');
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toContain('is not a jid');
  });

  it('requeue --to moves a job whose status the lifecycle does not know, shown with that status by jobs', async () => {
    const { bid, jids } = await expandedBatch(ctx, [objectSpec(0)]);
    const jid = jids[0]!;
    // Another tool moved it to a state this lifecycle does not know.
    const status = { status: 'Scanning', last_successful_status: 'Processing', retry_count: 0 };
    await ctx.zk.setData(`/jobs/${jid}/status`, JSON.stringify(status));
    await ctx.zk.delete(`/jobs/states/pending/05-${jid}`);
    await ctx.zk.mkdirp('/jobs/states/scanning');
    await ctx.zk.create(`/jobs/states/scanning/05-${jid}`);

    const listed = await mrtq('jobs', '--batch', bid);
    expect(listed.stdout).toContain('invalid (Scanning)');
    const plain = await mrtq('requeue', jid);
    expect(plain.code).toBe(5);
    expect(plain.stderr).toContain('--to');
    expect((await mrtq('requeue', jid, '--to', 'nowhere')).code).toBe(2);
    expect(await mrtq('requeue', jid, '--to', 'storing')).toMatchObject({
      code: 0,
      stdout: `${jid} storing\n`,
    });
    const job = await loadJob(ctx, jid);
    expect([job.status, job.retryCount, job.lastSuccessfulStatus]).toEqual(['storing', 1, 'processing']);
    expect(await ctx.zk.getChildren('/jobs/states/scanning')).toEqual([]);
    expect(await ctx.zk.getChildren('/jobs/states/storing')).toContain(`05-${jid}`);
  });

  it('refuses a locked job (exit 6) unless --force with a reason', async () => {
    const { jids } = await expandedBatch(ctx, [objectSpec(0)]);
    const jid = jids[0]!;
    const worker = queueContext(await chroot.connect());
    expect(await acquireJob(worker, 'pending', { skip: (j) => j !== jid })).toBeDefined();
    const busy = await mrtq('hold', jid);
    expect(busy.code).toBe(6);
    expect(busy.stderr).toContain('is locked by session');
    expect((await mrtq('hold', jid, '--force')).code).toBe(2);
    expect((await mrtq('hold', jid, '--force', '--reason', 'worker gone')).code).toBe(0);
  });

  it('batches: hold, release; queues: pause, resume; collections: hold, release', async () => {
    const { bid } = await expandedBatch(ctx, [objectSpec(0)]);
    // An expanded batch is processing: the machine refuses a hold.
    expect((await mrtq('hold', bid)).code).toBe(5);
    expect((await loadBatch(ctx, bid)).status).toBe('processing');

    expect((await mrtq('pause', 'ingest')).stdout).toBe('ingest paused\n');
    expect((await mrtq('pause', 'ingest')).stdout).toBe('ingest was already paused\n');
    expect(await ctx.zk.exists('/locks/queue/ingest')).toBeDefined();
    expect((await mrtq('resume', 'ingest')).code).toBe(0);
    expect((await mrtq('pause', 'nope')).code).toBe(2);

    expect((await mrtq('collection', 'hold', 'demo')).stdout).toBe('demo held\n');
    expect(await ctx.zk.exists('/locks/collections/demo')).toBeDefined();
    const released = await mrtq('collection', 'release', 'demo', '--json');
    expect(JSON.parse(released.stdout)).toMatchObject({ jobs: [], batches: [], failed: [] });
    expect(await ctx.zk.exists('/locks/collections/demo')).toBeUndefined();
  });
});

describe('batch operator commands', () => {
  it('hold and release a pending batch; update-report and delete a failed one', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);
    const { bid: pending } = await createBatch(ctx, {
      profile_name: 'demo',
      submitter: 's',
      payload_url: 'u',
      type: 'file',
    });
    expect((await mrtq('hold', pending)).stdout).toBe(`${pending} held\n`);
    expect((await mrtq('release', pending)).stdout).toBe(`${pending} pending\n`);

    const { bid, jids } = await expandedBatch(ctx, [objectSpec(0)]);
    await driveJob(ctx, jids[0]!, [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 1 },
      { type: 'provision.done' },
      { type: 'download.failed', message: '404' },
    ]);
    await driveBatch(ctx, bid, { type: 'batch.jobs-done' }, { release: false });
    await commitBatchTransition(
      ctx,
      {
        batch: await loadBatch(ctx, bid),
        lock: { path: `/batches/${bid}/lock`, sessionId: ctx.zk.sessionId },
      },
      { type: 'report.done', completedJobs: 0, failedJobs: 1 },
    );
    expect((await mrtq('update-report', bid)).stdout).toBe(`${bid} update-reporting\n`);
    await driveBatch(ctx, bid, { type: 'report.done', completedJobs: 0, failedJobs: 1 });
    expect((await mrtq('delete', bid, '--reason', 'reported twice')).stdout).toBe(`${bid} deleted\n`);
    expect(await ctx.zk.exists(`/batches/${bid}`)).toBeUndefined();
  }, 60_000);
});
