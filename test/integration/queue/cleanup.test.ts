import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { cleanup, type CleanupReport } from '../../../src/admin/cleanup.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { formatTimestamp } from '../../../src/queue/tree/timestamps.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveBatch, driveJob, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const DAY = 86_400_000;
const RETENTION = 7 * DAY;

const TO_COMPLETED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 10 },
  { type: 'provision.done' },
  { type: 'download.done' },
  { type: 'process.done' },
  { type: 'store.done' },
  { type: 'record.done' },
  { type: 'notify.done' },
];

async function newBatch(ctx: QueueContext, uuid?: string): Promise<string> {
  const submission = {
    profile_name: 'demo',
    submitter: 'depositor',
    payload_url: 'https://example.org/b.checkm',
    type: 'batch-manifest',
  };
  return (await createBatch(ctx, { ...submission, ...(uuid ? { batchID: uuid } : {}) })).bid;
}

/** A batch whose `count` jobs all completed and which reported: every write stamped by ctx's clock. */
async function completedBatch(
  ctx: QueueContext,
  count: number,
  uuid?: string,
): Promise<{ bid: string; jids: string[] }> {
  const bid = await newBatch(ctx, uuid);
  await driveBatch(ctx, bid, { type: 'batch.acquired' });
  const jids = (
    await createJobs(
      ctx,
      bid,
      Array.from({ length: count }, (_, i) => objectSpec(i)),
    )
  ).created.map((c) => c.jid);
  await driveBatch(ctx, bid, { type: 'expand.done', jobCount: count });
  for (const jid of jids) await driveJob(ctx, jid, TO_COMPLETED);
  await driveBatch(ctx, bid, { type: 'batch.jobs-done' });
  const event = { type: 'report.done' as const, completedJobs: count, failedJobs: 0 };
  await driveBatch(ctx, bid, event, { report: { successful_jobs: jids, failed_jobs: [] } });
  return { bid, jids };
}

const exists = async (ctx: QueueContext, path: string): Promise<boolean> =>
  (await ctx.zk.exists(path)) !== undefined;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('cleanup', () => {
  let ctx: QueueContext;
  let other: QueueContext;
  let old: QueueContext;
  /** The clock cleanup and doctor run with: the moment the young orphans were created. */
  let at: QueueContext;
  let grace = 0;
  const ids: Record<string, string> = {};
  let oldJobs: string[] = [];
  let crashedJobs: string[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    old = queueContext(ctx.zk, () => new Date(Date.now() - 30 * DAY));
    await ensureQueueTree(ctx.zk);
    const done = await completedBatch(old, 3, 'uuid-old');
    ids.old = done.bid;
    oldJobs = done.jids;
    ids.recent = (await completedBatch(ctx, 2, 'uuid-recent')).bid;
    const locked = await completedBatch(old, 1);
    ids.locked = locked.bid;
    await tryLock(other, `/batches/${locked.bid}`);
    const jobLocked = await completedBatch(old, 2);
    ids.jobLocked = jobLocked.bid;
    ids.lockedJob = jobLocked.jids[1]!;
    await tryLock(other, `/jobs/${ids.lockedJob}`);
    ids.processing = await newBatch(old);
    await driveBatch(old, ids.processing, { type: 'batch.acquired' });
    ids.pendingJob = (await createJobs(old, ids.processing, [objectSpec(0)])).created[0]!.jid;
    ids.deleted = await newBatch(old, 'uuid-deleted');
    await driveBatch(old, ids.deleted, { type: 'admin.hold' });
    await driveBatch(old, ids.deleted, { type: 'admin.delete' });
    ids.unreadable = await newBatch(old);
    await ctx.zk.setData(
      `/batches/${ids.unreadable}/status`,
      JSON.stringify({ status: 'Completed', last_modified: 'last Tuesday' }),
    );
    // A cleanup that crashed midway: one job and the uuid entry already gone, the rest still there.
    const crashed = await completedBatch(old, 3, 'uuid-crashed');
    ids.crashed = crashed.bid;
    crashedJobs = crashed.jids;
    await ctx.zk.delete(`/jobs/states/completed/05-${crashed.jids[0]}`);
    await ctx.zk.deleteRecursive(`/jobs/${crashed.jids[0]}`);
    await ctx.zk.delete('/batch-uuids/uuid-crashed');
    // What crashes leave: empty id nodes, a job with data but no status and no refs, dangling refs and uuid.
    ids.orphanJob = (await ctx.zk.create('/jobs/jid', null, 'persistent_sequential')).slice(6);
    ids.orphanBatch = (await ctx.zk.create('/batches/bid', null, 'persistent_sequential')).slice(9);
    ids.halfJob = (await ctx.zk.create('/jobs/jid', null, 'persistent_sequential')).slice(6);
    await ctx.zk.create(`/jobs/${ids.halfJob}/configuration`, '{}');
    await ctx.zk.create('/jobs/states/estimating/05-jid9999999999');
    await ctx.zk.create(`/batches/${ids.processing}/states/batch-processing/jid9999999998`);
    await ctx.zk.create('/batch-uuids/uuid-ghost', 'bid9999999999');
    const lastOld = (await ctx.zk.exists('/batch-uuids/uuid-ghost'))!.ctime;
    await sleep(50);
    ids.youngJob = (await ctx.zk.create('/jobs/jid', null, 'persistent_sequential')).slice(6);
    await ctx.zk.create('/jobs/states/pending/05-jid9999999997');
    const young = (await ctx.zk.exists(`/jobs/${ids.youngJob}`))!.ctime;
    grace = Math.floor((young - lastOld) / 2);
    at = queueContext(ctx.zk, () => new Date(young));
  });

  it('a dry run reports what would go and removes nothing', async () => {
    const report = await cleanup(at, { retentionMs: RETENTION, orphanGraceMs: grace, dryRun: true });
    expect(report.dryRun).toBe(true);
    expect(report.batches.map((b) => b.bid).sort()).toEqual([ids.old, ids.deleted, ids.crashed].sort());
    expect(report.orphans.sort()).toEqual([ids.orphanJob, ids.halfJob, ids.orphanBatch].sort());
    expect(await exists(ctx, `/batches/${ids.old}`)).toBe(true);
    expect(await exists(ctx, `/jobs/${ids.orphanJob}`)).toBe(true);
    expect(await exists(ctx, '/batch-uuids/uuid-ghost')).toBe(true);
  });

  describe('for real', () => {
    let report: CleanupReport;
    beforeAll(async () => {
      report = await cleanup(at, { retentionMs: RETENTION, orphanGraceMs: grace });
    });

    it('removes an old completed batch with its jobs, their refs and its uuid entry', async () => {
      expect(report.batches.find((b) => b.bid === ids.old)).toMatchObject({
        status: 'Completed',
        jobs: oldJobs,
        uuid: 'uuid-old',
      });
      expect(await exists(ctx, `/batches/${ids.old}`)).toBe(false);
      expect(await exists(ctx, '/batch-uuids/uuid-old')).toBe(false);
      for (const jid of oldJobs) {
        expect(await exists(ctx, `/jobs/${jid}`)).toBe(false);
        expect(await exists(ctx, `/jobs/states/completed/05-${jid}`)).toBe(false);
      }
    });

    it('removes an old deleted batch, and finishes a batch a crashed cleanup left half removed', async () => {
      expect(await exists(ctx, `/batches/${ids.deleted}`)).toBe(false);
      expect(await exists(ctx, '/batch-uuids/uuid-deleted')).toBe(false);
      expect(report.batches.find((b) => b.bid === ids.crashed)?.jobs).toEqual(crashedJobs.slice(1));
      expect(await exists(ctx, `/batches/${ids.crashed}`)).toBe(false);
      for (const jid of crashedJobs) expect(await exists(ctx, `/jobs/${jid}`)).toBe(false);
    });

    it('keeps a recent batch, a processing one, a locked one, one with a locked job and one it cannot date', async () => {
      const reasons = Object.fromEntries(report.skipped.map((s) => [s.item, s.reason]));
      expect(reasons[ids.recent!]).toMatch(/within the retention/);
      expect(reasons[ids.locked!]).toMatch(/locked by session/);
      expect(reasons[ids.jobLocked!]).toContain(`job ${ids.lockedJob} is locked`);
      expect(reasons[ids.unreadable!]).toMatch(/last_modified "last Tuesday" is unreadable/);
      for (const bid of [ids.recent, ids.locked, ids.jobLocked, ids.processing, ids.unreadable]) {
        expect(await exists(ctx, `/batches/${bid}/status`)).toBe(true);
      }
      expect(await exists(ctx, `/jobs/${ids.lockedJob}/status`)).toBe(true);
      expect(await exists(ctx, `/jobs/${ids.pendingJob}/status`)).toBe(true);
      expect(await exists(ctx, '/batch-uuids/uuid-recent')).toBe(true);
    });

    it('removes orphans older than the grace period and keeps younger ones', async () => {
      expect(report.orphans.sort()).toEqual([ids.orphanJob, ids.halfJob, ids.orphanBatch].sort());
      expect(report.danglingRefs.sort()).toEqual(
        [
          '/jobs/states/estimating/05-jid9999999999',
          `/batches/${ids.processing}/states/batch-processing/jid9999999998`,
        ].sort(),
      );
      expect(report.danglingUuids).toEqual(['uuid-ghost']);
      expect(await exists(ctx, `/jobs/${ids.orphanJob}`)).toBe(false);
      expect(await exists(ctx, `/jobs/${ids.halfJob}`)).toBe(false);
      expect(await exists(ctx, `/batches/${ids.orphanBatch}`)).toBe(false);
      expect(await exists(ctx, `/jobs/${ids.youngJob}`)).toBe(true);
      expect(await exists(ctx, '/jobs/states/pending/05-jid9999999997')).toBe(true);
    });

    it('a second run removes nothing more', async () => {
      const again = await cleanup(at, { retentionMs: RETENTION, orphanGraceMs: grace });
      expect(again).toMatchObject({ batches: [], orphans: [], danglingRefs: [], danglingUuids: [] });
    });

    it('leaves a queue doctor finds nothing wrong with', async () => {
      const result = await doctor(at, { orphanGraceMs: grace });
      // The young dangling ref is the one thing left: within the grace, cleanup must not touch it.
      expect(result.problems.map((p) => `${p.code} ${p.path}`)).toEqual([
        'JOB_STATE_REF_DANGLING /jobs/states/pending/05-jid9999999997',
      ]);
      await ctx.zk.delete('/jobs/states/pending/05-jid9999999997');
      expect(await doctor(at, { orphanGraceMs: grace })).toMatchObject({ ok: true, problems: [] });
    });
  });

  it('never removes a completed batch whose batch-processing folder is not empty', async () => {
    const bid = await newBatch(old);
    await driveBatch(old, bid, { type: 'batch.acquired' });
    const { created } = await createJobs(old, bid, [objectSpec(0)]);
    const stamp = formatTimestamp(new Date(Date.now() - 30 * DAY));
    await ctx.zk.setData(
      `/batches/${bid}/status`,
      JSON.stringify({ status: 'Completed', last_modified: stamp }),
    );
    const report = await cleanup(ctx, { retentionMs: RETENTION });
    expect(report.skipped.find((s) => s.item === bid)?.reason).toMatch(
      /1 jobs are still in batch-processing/,
    );
    expect(await exists(ctx, `/jobs/${created[0]!.jid}/status`)).toBe(true);
  });

  it('`mrtq cleanup` run as a process reports in JSON, and refuses a duration it cannot read', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        const argv = ['bin/mrtq.js', 'cleanup', ...args, '--zk', chroot.connectString()];
        execFile('node', argv, { cwd: repo }, (err, stdout) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout });
        });
      });
    const dry = await run('--dry-run', '--json', '--retention', '7d');
    expect(dry.code).toBe(0);
    const report = JSON.parse(dry.stdout) as CleanupReport;
    expect(report.dryRun).toBe(true);
    expect(report.skipped.map((s) => s.item)).toContain(ids.recent);
    expect((await run('--retention', 'a week')).code).toBe(2);
  });
});
