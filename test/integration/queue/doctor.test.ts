import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor, type DoctorProblem } from '../../../src/doctor/doctor.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveBatch, driveJob, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot, type ZkChroot } from '../../support/zk-chroot.js';

const clean = useZkChroot();
const broken = useZkChroot();
const repo = fileURLToPath(new URL('../../../', import.meta.url));

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
const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 10 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404 for object-1.checkm' },
];

/** A batch acquired and expanded into `count` pending jobs. */
async function expandedBatch(
  ctx: QueueContext,
  count: number,
  uuid?: string,
): Promise<{ bid: string; jids: string[] }> {
  const { bid } = await createBatch(ctx, {
    profile_name: 'demo',
    submitter: 'depositor',
    payload_url: 'https://example.org/batch.checkm',
    type: 'batch-manifest',
    ...(uuid ? { batchID: uuid } : {}),
  });
  await driveBatch(ctx, bid, { type: 'batch.acquired' });
  const { created } = await createJobs(
    ctx,
    bid,
    Array.from({ length: count }, (_, i) => objectSpec(i)),
  );
  await driveBatch(ctx, bid, { type: 'expand.done', jobCount: count });
  return { bid, jids: created.map((job) => job.jid) };
}

async function report(ctx: QueueContext, bid: string, completed: string[], failed: string[]): Promise<void> {
  await driveBatch(ctx, bid, { type: 'batch.jobs-done' });
  await driveBatch(
    ctx,
    bid,
    { type: 'report.done', completedJobs: completed.length, failedJobs: failed.length },
    { report: { successful_jobs: completed, failed_jobs: failed } },
  );
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function mrtq(chroot: ZkChroot, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      'node',
      ['bin/mrtq.js', ...args, '--zk', chroot.connectString()],
      { cwd: repo },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const summary = (problems: DoctorProblem[]): string[] => problems.map((p) => `${p.code} ${p.item}`).sort();

describe('doctor on a queue driven only through the store', () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await clean.connect());
    await ensureQueueTree(ctx.zk);
    const done = await expandedBatch(ctx, 3, 'uuid-done');
    for (const jid of done.jids) await driveJob(ctx, jid, TO_COMPLETED);
    await report(ctx, done.bid, done.jids, []);
    const mixed = await expandedBatch(ctx, 2);
    await driveJob(ctx, mixed.jids[0]!, TO_COMPLETED);
    await driveJob(ctx, mixed.jids[1]!, TO_FAILED);
    await report(ctx, mixed.bid, [mixed.jids[0]!], [mixed.jids[1]!]);
    const running = await expandedBatch(ctx, 3, 'uuid-running');
    await driveJob(ctx, running.jids[0]!, [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 5, priority: 12 },
    ]);
    await driveJob(ctx, running.jids[1]!, [{ type: 'admin.hold' }]);
    const { bid: held } = await createBatch(ctx, {
      profile_name: 'demo',
      submitter: 'd',
      payload_url: 'https://x/y',
      type: 'file',
    });
    await driveBatch(ctx, held, { type: 'admin.hold' });
    await createBatch(ctx, {
      profile_name: 'demo',
      submitter: 'd',
      payload_url: 'https://x/z',
      type: 'file',
      batchID: 'uuid-new',
    });
  });

  it('finds no problem in completed, failed, processing, held and pending batches', async () => {
    const result = await doctor(ctx);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    // 8 jobs with two refs each.
    expect(result.checked).toEqual({ jobs: 8, batches: 5, refs: 16 });
  });

  it('reports a lock whose session is not among the live ones, and only then', async () => {
    const other = queueContext(await clean.connect());
    const { jids } = await expandedBatch(ctx, 1);
    const lock = await tryLock(other, `/jobs/${jids[0]}`);
    expect(lock.held).toBe(true);
    const stale = await doctor(ctx, { liveSessions: new Set(['12345']) });
    expect(summary(stale.problems)).toEqual([`STALE_LOCK ${jids[0]}`]);
    expect(stale.problems[0]!.message).toContain(`0x${other.zk.sessionId}`);
    const live = await doctor(ctx, { liveSessions: new Set([`0x${other.zk.sessionId.toUpperCase()}`]) });
    expect(live.problems).toEqual([]);
    expect((await doctor(ctx)).ok).toBe(true);
    await other.zk.close();
  });

  it('`mrtq doctor --json` run as a process exits 0 on this queue', async () => {
    const run = await mrtq(clean, 'doctor', '--json');
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as { ok: boolean; problems: unknown[]; checked: { jobs: number } };
    expect(output).toMatchObject({ ok: true, problems: [] });
    expect(output.checked.jobs).toBe(9);
  });
});

describe('doctor on a queue with injected defects', () => {
  let ctx: QueueContext;
  let jids: string[];
  let bid: string;
  const defects: string[] = [];
  let orphanCtime = 0;
  let youngCtime = 0;
  let youngJob = '';

  async function move(from: string, to: string): Promise<void> {
    await ctx.zk.delete(from);
    await ctx.zk.create(to);
  }

  beforeAll(async () => {
    ctx = queueContext(await broken.connect());
    await ensureQueueTree(ctx.zk);
    ({ bid, jids } = await expandedBatch(ctx, 10, 'uuid-broken'));
    const [
      bad,
      bogus,
      noStatus,
      wrongFolder,
      wrongPriority,
      persistentLock,
      noRef,
      wrongBatchFolder,
      badConfig,
    ] = jids as [string, string, string, string, string, string, string, string, string];
    await ctx.zk.setData(`/jobs/${bad}/status`, '{"status": "Pend');
    await ctx.zk.setData(
      `/jobs/${bogus}/status`,
      JSON.stringify({ status: 'Bogus', last_modified: '2026-01-01 00:00:00 +0000' }),
    );
    await ctx.zk.delete(`/jobs/${noStatus}/status`);
    await move(`/jobs/states/pending/05-${wrongFolder}`, `/jobs/states/estimating/05-${wrongFolder}`);
    await move(`/jobs/states/pending/05-${wrongPriority}`, `/jobs/states/pending/07-${wrongPriority}`);
    await ctx.zk.create(`/jobs/${persistentLock}/lock`);
    await ctx.zk.delete(`/jobs/states/pending/05-${noRef}`);
    await move(
      `/batches/${bid}/states/batch-processing/${wrongBatchFolder}`,
      `/batches/${bid}/states/batch-completed/${wrongBatchFolder}`,
    );
    await ctx.zk.setData(`/jobs/${badConfig}/configuration`, 'profile_name=demo');
    await ctx.zk.create('/jobs/states/pending/05-jid9999999999');
    await ctx.zk.create(`/batches/${bid}/states/batch-processing/jid9999999998`);
    await ctx.zk.create('/batch-uuids/uuid-ghost', 'bid9999999999');
    await ctx.zk.create('/locks/storage/ark_13030_m5abc', null, 'persistent');
    defects.push(
      `JOB_STATUS_INVALID ${bad}`,
      `JOB_STATUS_UNKNOWN ${bogus}`,
      `JOB_STATUS_MISSING ${noStatus}`,
      `JOB_STATE_REF_WRONG_FOLDER ${wrongFolder}`,
      `JOB_STATE_REF_WRONG_PRIORITY ${wrongPriority}`,
      `STALE_LOCK ${persistentLock}`,
      `JOB_NO_STATE_REF ${noRef}`,
      `JOB_BATCH_REF_WRONG_FOLDER ${wrongBatchFolder}`,
      `JOB_CONFIGURATION_INVALID ${badConfig}`,
      'JOB_STATE_REF_DANGLING jid9999999999',
      'BATCH_REF_DANGLING jid9999999998',
      'BATCH_UUID_DANGLING uuid-ghost',
      'STALE_LOCK ark_13030_m5abc',
    );
    // A processing batch someone marked Completed while a job is still pending.
    const early = await expandedBatch(ctx, 1);
    await ctx.zk.setData(
      `/batches/${early.bid}/status`,
      JSON.stringify({ status: 'Completed', last_modified: '2026-01-01 00:00:00 +0000' }),
    );
    // A batch marked Failed with nothing to explain it.
    const { bid: unexplained } = await createBatch(ctx, {
      profile_name: 'd',
      submitter: 'd',
      payload_url: 'https://x',
      type: 'file',
    });
    await ctx.zk.setData(
      `/batches/${unexplained}/status`,
      JSON.stringify({ status: 'failed', last_modified: '2026-01-01 00:00:00 +0000' }),
    );
    const orphanJob = (await ctx.zk.create('/jobs/jid', null, 'persistent_sequential')).slice(
      '/jobs/'.length,
    );
    const orphanBatch = (await ctx.zk.create('/batches/bid', null, 'persistent_sequential')).slice(
      '/batches/'.length,
    );
    orphanCtime = (await ctx.zk.exists(`/jobs/${orphanJob}`))!.ctime;
    defects.push(
      `BATCH_COMPLETED_WITH_OPEN_JOBS ${early.bid}`,
      `BATCH_FAILED_WITHOUT_CAUSE ${unexplained}`,
      `ORPHAN_ID_NODE ${orphanJob}`,
      `ORPHAN_ID_NODE ${orphanBatch}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    youngJob = (await ctx.zk.create('/jobs/jid', null, 'persistent_sequential')).slice('/jobs/'.length);
    youngCtime = (await ctx.zk.exists(`/jobs/${youngJob}`))!.ctime;
  });

  it('reports each injected defect with its code and item, and nothing else', async () => {
    // The clock stands at the young orphan's creation: the older id nodes are past the grace, it is not.
    const grace = Math.floor((youngCtime - orphanCtime) / 2);
    const result = await doctor(
      queueContext(ctx.zk, () => new Date(youngCtime)),
      { orphanGraceMs: grace },
    );
    expect(summary(result.problems)).toEqual([...defects].sort());
    expect(result.ok).toBe(false);
    expect(summary(result.problems).join('\n')).not.toContain(youngJob);
  });

  it('names the node and what was expected in each message', async () => {
    const { problems } = await doctor(ctx);
    const byCode = (code: string): DoctorProblem => problems.find((p) => p.code === code)!;
    const [, , , wrongFolder, wrongPriority, , noRef] = jids;
    expect(byCode('JOB_STATE_REF_WRONG_FOLDER').path).toBe(`/jobs/states/estimating/05-${wrongFolder}`);
    expect(byCode('JOB_STATE_REF_WRONG_FOLDER').message).toContain(
      `expected /jobs/states/pending/05-${wrongFolder}`,
    );
    expect(byCode('JOB_STATE_REF_WRONG_PRIORITY').message).toContain(
      `expected /jobs/states/pending/05-${wrongPriority}`,
    );
    expect(byCode('JOB_NO_STATE_REF').path).toBe(`/jobs/states/pending/05-${noRef}`);
    expect(byCode('JOB_STATUS_UNKNOWN').message).toMatch(/"Bogus".*Pending, Held/);
    expect(byCode('BATCH_UUID_DANGLING').path).toBe('/batch-uuids/uuid-ghost');
    expect(byCode('BATCH_UUID_DANGLING').message).toContain(
      'names batch bid9999999999, which does not exist',
    );
    // With the real clock and the default grace of 10 minutes, fresh empty id nodes are creations in progress.
    expect(problems.filter((p) => p.code === 'ORPHAN_ID_NODE')).toEqual([]);
  });

  it('`mrtq doctor --json` run as a process exits 1 and lists the problems', async () => {
    const run = await mrtq(broken, 'doctor', '--json');
    expect(run.code, run.stderr).toBe(1);
    const output = JSON.parse(run.stdout) as { ok: boolean; problems: DoctorProblem[] };
    expect(output.ok).toBe(false);
    expect(summary(output.problems)).toContain(`JOB_STATUS_UNKNOWN ${jids[1]}`);
    expect(summary(output.problems)).toContain('BATCH_UUID_DANGLING uuid-ghost');
  });

  it('`mrtq doctor` prints one line per problem and a summary', async () => {
    const run = await mrtq(broken, 'doctor');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`JOB_STATUS_MISSING ${jids[2]}`);
    expect(run.stderr).toMatch(/\d+ problems found \(checked 13 jobs/);
  });
});
