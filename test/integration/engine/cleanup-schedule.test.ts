import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { CLEANUP_LOCK } from '../../../src/admin/cleanup-schedule.js';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { apiUrlOf } from '../../support/chaos/operator.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { driveBatch, driveJob, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const DAY = 86_400_000;
const JOBS = 3;

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

/** A batch whose jobs all completed and which reported, two days ago by its clock. */
async function completedBatch(ctx: QueueContext): Promise<{ bid: string; jids: string[] }> {
  const submission = {
    profile_name: 'demo',
    submitter: 'depositor',
    payload_url: 'u',
    type: 'batch-manifest',
  };
  const { bid } = await createBatch(ctx, submission);
  await driveBatch(ctx, bid, { type: 'batch.acquired' });
  const specs = Array.from({ length: JOBS }, (_, i) => objectSpec(i));
  const jids = (await createJobs(ctx, bid, specs)).created.map((c) => c.jid);
  await driveBatch(ctx, bid, { type: 'expand.done', jobCount: JOBS });
  for (const jid of jids) await driveJob(ctx, jid, TO_COMPLETED);
  await driveBatch(ctx, bid, { type: 'batch.jobs-done' });
  const report = { successful_jobs: jids, failed_jobs: [] };
  await driveBatch(ctx, bid, { type: 'report.done', completedJobs: JOBS, failedJobs: 0 }, { report });
  return { bid, jids };
}

/** The value of one sample of `/metrics` (0 when absent). */
async function metric(engine: EngineProcess, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${apiUrlOf(engine)}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function sum(engines: EngineProcess[], name: string, labels: string): Promise<number> {
  return (await Promise.all(engines.map((e) => metric(e, name, labels)))).reduce((a, b) => a + b, 0);
}

describe('scheduled cleanup in `mrtq serve` (automatic retention)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-cleanup-schedule-'));
  const workRoot = join(dir, 'work');
  const engines: EngineProcess[] = [];
  let ctx: QueueContext;

  beforeAll(async () => {
    const zk = await chroot.connect();
    await ensureQueueTree(zk);
    ctx = queueContext(zk, () => new Date(Date.now() - 2 * DAY));
  });

  afterAll(async () => {
    for (const engine of engines) engine.signal('SIGTERM');
    await Promise.all(engines.map((engine) => engine.exited));
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes an old completed batch, its jobs and its working directory on its own, one engine at a time, and counts it', async () => {
    const { bid, jids } = await completedBatch(ctx);
    const jobDir = join(workRoot, bid, jids[0]!);
    mkdirSync(jobDir, { recursive: true });
    writeFileSync(join(jobDir, 'payload.bin'), 'left behind');
    // An operator (or a third engine) holds the cleanup lock: the engines must wait for it.
    const held = await ctx.zk.create(CLEANUP_LOCK, null, 'ephemeral');

    const env = {
      MRTQ_CLEANUP_INTERVAL_MS: '300',
      MRTQ_CLEANUP_RETENTION_MS: String(DAY),
      MRTQ_WORK_ROOT: workRoot,
      MRTQ_DATA_DIR: join(dir, 'data'),
    };
    for (let i = 0; i < 2; i += 1) engines.push(await startEngineProcess(chroot.connectString(), [], env));

    // Both try, and each finds the lock taken: the batch stays.
    await eventually(
      () => Promise.all(engines.map((e) => metric(e, 'mrtq_cleanup_runs_total', 'outcome="locked"'))),
      (counts) => counts.every((n) => n >= 2),
      30_000,
    );
    expect(await ctx.zk.exists(`/batches/${bid}`)).toBeDefined();
    expect(existsSync(jobDir)).toBe(true);

    await ctx.zk.delete(held);
    await eventually(
      () => ctx.zk.exists(`/batches/${bid}`),
      (stat) => stat === undefined,
      30_000,
    );
    for (const jid of jids) expect(await ctx.zk.exists(`/jobs/${jid}`)).toBeUndefined();
    await eventually(
      () => existsSync(join(workRoot, bid)),
      (exists) => !exists,
      10_000,
    );

    // Exactly one engine removed it, and said so in one line; the metrics count what went.
    await eventually(
      () => sum(engines, 'mrtq_cleanup_removed_total', 'kind="batches"'),
      (n) => n === 1,
      10_000,
    );
    expect(await sum(engines, 'mrtq_cleanup_removed_total', 'kind="jobs"')).toBe(JOBS);
    expect(await sum(engines, 'mrtq_cleanup_removed_total', 'kind="workdirs"')).toBeGreaterThanOrEqual(1);
    expect(await sum(engines, 'mrtq_cleanup_runs_total', 'outcome="failed"')).toBe(0);
    // The line is logged right after the count, and the log reaches stdout a moment later.
    const lines = await eventually(
      () =>
        engines.flatMap((e) =>
          e
            .output()
            .split('\n')
            .filter(
              (line) => line.includes('"msg":"scheduled cleanup done"') && line.includes('"batches":1'),
            ),
        ),
      (found) => found.length >= 1,
      10_000,
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ removed: { batches: 1, jobs: JOBS } });
    const durations = await sum(engines, 'mrtq_cleanup_duration_seconds_count', 'outcome="done"');
    expect(durations).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
