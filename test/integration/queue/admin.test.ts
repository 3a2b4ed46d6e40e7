import { beforeAll, describe, expect, it } from 'vitest';
import { deleteBatch } from '../../../src/admin/batches.js';
import { deleteJob, holdJob, releaseJob, requeueJob } from '../../../src/admin/jobs.js';
import { releaseCollection } from '../../../src/admin/collections.js';
import { acquireBatch } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { acquireJob } from '../../../src/queue/jobs/acquire.js';
import { createJobs, type JobSpec } from '../../../src/queue/jobs/create.js';
import { commitJobTransition } from '../../../src/queue/jobs/transition.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import {
  clearCollectionHold,
  holdCollection,
  isCollectionHeld,
  isQueuePaused,
  lockObject,
  pauseQueue,
  resumeQueue,
} from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { Op } from '../../../src/zk/index.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

const spec = (position: number, collection = 'demo'): JobSpec =>
  objectSpec(position, { payload_url: `u${position}`, payload_type: 'file', collection });

describe('operator actions', () => {
  let ctx: QueueContext;
  let worker: QueueContext;

  const batchWithJobs = (specs: JobSpec[]) => expandedBatch(ctx, specs);

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    worker = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('refuses to act on a job another session holds, naming the holder; --force breaks the lock and fences the holder out', async () => {
    const { jids } = await batchWithJobs([spec(0, 'forced')]);
    const jid = jids[0]!;
    const held = (await acquireJob(worker, 'pending', { skip: (j) => j !== jid }))!;

    const refused = await holdJob(ctx, jid).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'LOCK_HELD' });
    expect((refused as Error).message).toContain(worker.zk.sessionId);
    await expect(holdJob(ctx, jid, { force: true })).rejects.toMatchObject({ code: 'BAD_REQUEST' });

    const job = await holdJob(ctx, jid, { force: true, reason: 'worker stuck on a dead NFS mount' });
    expect(job.status).toBe('held');
    // The worker's late commit must not overwrite the operator's change: its lock is gone
    // (LOCK_LOST). Had the operator still held the lock, the moved status version would stop it
    // (CONFLICT, shown in transitions.test.ts).
    await expect(commitJobTransition(worker, held, { type: 'job.acquired' })).rejects.toMatchObject({
      code: 'LOCK_LOST',
    });
    expect((await loadJob(ctx, jid)).status).toBe('held');
  });

  it('refuses what the machine does not allow, with the state and event named', async () => {
    const { jids } = await batchWithJobs([spec(0, 'refused')]);
    const error = await requeueJob(ctx, jids[0]!).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_TRANSITION' });
    expect((error as Error).message).toContain('"admin.requeue" is not allowed for a job in state pending');
    // Nothing was left locked by the refused action.
    expect(await ctx.zk.exists(`/jobs/${jids[0]}/lock`)).toBeUndefined();
  });

  it('a failed job is neither deleted nor requeued while its batch is reported, so the report cannot list a deleted job as failed', async () => {
    const { bid, jids } = await batchWithJobs([spec(0, 'reported')]);
    const jid = jids[0]!;
    await driveJob(ctx, jid, [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 1 },
      { type: 'provision.done' },
      { type: 'download.failed', message: '404' },
    ]);
    // A reporter has moved the batch to reporting and read its lists (jid failed).
    const reporter = (await acquireBatch(worker, 'report', { candidates: [bid] }))!;
    const reporting = await commitBatchTransition(
      worker,
      reporter,
      { type: 'batch.jobs-done' },
      { release: false },
    );
    for (const act of [deleteJob, requeueJob]) {
      const refused = await act(ctx, jid).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'LOCK_HELD' });
      expect((refused as Error).message).toContain(jid);
    }
    expect((await loadJob(ctx, jid)).status).toBe('failed');
    expect(await ctx.zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();

    await commitBatchTransition(
      worker,
      { batch: reporting, lock: reporter.lock },
      { type: 'report.done', completedJobs: 0, failedJobs: 1 },
      { report: { failed_jobs: [jid], successful_jobs: [] } },
    );
    expect((await deleteJob(ctx, jid)).status).toBe('deleted');
    expect(await ctx.zk.exists(`/batches/${bid}/lock`)).toBeUndefined();
  });

  it('a reporter cannot take a batch between a requeue reading it and committing the job back into it', async () => {
    const { bid, jids } = await batchWithJobs([spec(0, 'requeue-race')]);
    const jid = jids[0]!;
    await driveJob(ctx, jid, [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 1 },
      { type: 'provision.done' },
      { type: 'download.failed', message: '404' },
    ]);
    // The batch is processing with batch-processing empty: a reporter may take it any moment.
    // It tries right before the requeue's commit is sent.
    let reporterTook = false;
    const beforeMulti = async () => {
      const reporter = await acquireBatch(worker, 'report', { candidates: [bid] });
      if (!reporter) return;
      reporterTook = true;
      await commitBatchTransition(worker, reporter, { type: 'batch.jobs-done' }, { release: false });
    };
    const racing: QueueContext = {
      ...ctx,
      zk: new Proxy(ctx.zk, {
        get(target, key) {
          if (key === 'multi') return async (ops: Op[]) => (await beforeMulti(), target.multi(ops));
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }),
    };
    const requeued = await requeueJob(racing, jid);
    // The requeue holds the batch lock until its commit: the reporter cannot take the batch and
    // report it while the job runs again (its report would leave the job out); it reports the
    // batch once the job is done.
    expect(reporterTook).toBe(false);
    expect(requeued.status).toBe('downloading');
    expect((await loadBatch(ctx, bid)).status).toBe('processing');
    expect(await ctx.zk.exists(`/batches/${bid}/lock`)).toBeUndefined();
  });

  it('a collection hold sends matching work to held; releasing the collection releases its held jobs only', async () => {
    const { jids } = await batchWithJobs([spec(0, 'demo'), spec(1, 'other'), spec(2, 'demo')]);
    expect(await holdCollection(ctx, 'demo')).toBe(true);
    expect(await holdCollection(ctx, 'demo')).toBe(false);
    expect(await isCollectionHeld(ctx, 'demo')).toBe(true);
    // What the pending consumer does when it finds the hold (issue #5 wires this up).
    for (const jid of jids) {
      const acquired = (await acquireJob(ctx, 'pending', { skip: (j) => j !== jid }))!;
      const held = acquired.job.configuration.collection === 'demo';
      await commitJobTransition(ctx, acquired, { type: held ? 'job.held' : 'job.acquired' });
    }
    await holdJob(ctx, (await batchWithJobs([spec(0, 'other')])).jids[0]!);

    const released = await releaseCollection(ctx, 'demo');
    expect(released.jobs.sort()).toEqual([jids[0], jids[2]].sort());
    expect(released.failed).toEqual([]);
    expect(await isCollectionHeld(ctx, 'demo')).toBe(false);
    expect((await loadJob(ctx, jids[0]!)).status).toBe('pending');
    expect((await loadJob(ctx, jids[1]!)).status).toBe('estimating');
    expect(await clearCollectionHold(ctx, 'demo')).toBe(false);
  });

  it('pauses and resumes a queue', async () => {
    expect(await isQueuePaused(ctx, 'ingest')).toBe(false);
    expect(await pauseQueue(ctx, 'ingest')).toBe(true);
    expect(await ctx.zk.exists('/locks/queue/ingest')).toBeDefined();
    expect(await isQueuePaused(ctx, 'ingest')).toBe(true);
    expect(await resumeQueue(ctx, 'ingest')).toBe(true);
    expect(await isQueuePaused(ctx, 'ingest')).toBe(false);
  });

  it('object locks are ephemeral, exclusive, and named as mrt-zk names them (":?/" → "_")', async () => {
    const ark = 'ark:/13030/m5abc';
    const mine = await lockObject(ctx, 'storage', ark);
    expect(mine?.path).toBe('/locks/storage/ark_13030_m5abc');
    expect(await lockObject(worker, 'storage', ark)).toBeUndefined();
    const stat = await ctx.zk.exists(mine!.path);
    expect(stat?.ephemeralOwner).toBe(ctx.zk.sessionId);
    expect(await lockObject(worker, 'inventory', ark)).toMatchObject({
      path: '/locks/inventory/ark_13030_m5abc',
      sessionId: worker.zk.sessionId,
    });
  });

  it('releasing a held job is refused while the batch is fine; the batch state is untouched', async () => {
    const { bid, jids } = await batchWithJobs([spec(0, 'x')]);
    await holdJob(ctx, jids[0]!);
    const before = await loadBatch(ctx, bid);
    await releaseJob(ctx, jids[0]!);
    expect((await loadBatch(ctx, bid)).statusVersion).toBe(before.statusVersion);
  });
});

describe('deleting a failed batch', () => {
  it('removes the batch, every job of it (refs and nodes) and its uuid entry', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'u',
      type: 'file',
      batchID: 'del-1',
    });
    const acquired = (await acquireBatch(ctx, 'expand', { candidates: [bid] }))!;
    const processing = await commitBatchTransition(
      ctx,
      acquired,
      { type: 'batch.acquired' },
      { release: false },
    );
    const { created } = await createJobs(ctx, bid, [spec(0, 'd'), spec(1, 'd')]);
    await commitBatchTransition(
      ctx,
      { batch: processing, lock: acquired.lock },
      { type: 'expand.done', jobCount: 2 },
    );
    const [good, bad] = created.map((c) => c.jid) as [string, string];
    const drive = async (
      jid: string,
      state: Parameters<typeof acquireJob>[1],
      event: Parameters<typeof commitJobTransition>[2],
    ) => commitJobTransition(ctx, (await acquireJob(ctx, state, { skip: (j) => j !== jid }))!, event);
    await drive(bad, 'pending', { type: 'job.acquired' });
    await drive(bad, 'estimating', { type: 'estimate.done', spaceNeeded: 1 });
    await drive(bad, 'provisioning', { type: 'provision.done' });
    await drive(bad, 'downloading', { type: 'download.failed', message: '404' });
    await holdJob(ctx, good);
    await deleteJob(ctx, good);
    const reporting = (await acquireBatch(ctx, 'report', { candidates: [bid] }))!;
    const r = await commitBatchTransition(ctx, reporting, { type: 'batch.jobs-done' }, { release: false });
    await commitBatchTransition(
      ctx,
      { batch: r, lock: reporting.lock },
      { type: 'report.done', completedJobs: 0, failedJobs: 1 },
    );
    expect((await loadBatch(ctx, bid)).status).toBe('failed');

    const deleted = await deleteBatch(ctx, bid);
    expect(deleted.pending).toBeUndefined();
    expect(deleted.removedJobs.sort()).toEqual([good, bad].sort());
    expect(await ctx.zk.exists(`/batches/${bid}`)).toBeUndefined();
    expect(await ctx.zk.exists('/batch-uuids/del-1')).toBeUndefined();
    for (const jid of [good, bad]) expect(await ctx.zk.exists(`/jobs/${jid}`)).toBeUndefined();
    const refs = await Promise.all(['failed', 'deleted'].map((s) => ctx.zk.getChildren(`/jobs/states/${s}`)));
    expect(refs.flat().filter((name) => name.endsWith(good) || name.endsWith(bad))).toEqual([]);
  });
});
