import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { loadAccess } from '../../../src/queue/access/requests.js';
import { deleteJob, requeueJob } from '../../../src/admin/jobs.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { isQueueError } from '../../../src/queue/tree/errors.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { listJobs } from '../../../src/views/listing/listing.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { JAVA_TIME, writeForeignBatch } from '../../support/foreign-items.js';

const chroot = useZkChroot();

async function batchDone(ctx: QueueContext, bid: string): Promise<void> {
  await eventually(
    () => loadBatch(ctx, bid),
    (b) => b.status === 'completed' || b.status === 'failed',
    60_000,
  );
}

describe('foreign and odd data never strand work', () => {
  let ctx: QueueContext;
  let engine: Engine;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const log = pino(
      { level: 'debug' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    engine = new Engine(
      {
        queue: { ...queueContext(await chroot.connect()), log },
        ...createSimulatedSteps(),
        ledger: { record: () => {} },
        log,
      },
      { sweepIntervalMs: 0 },
    );
    await engine.start();
  });
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('takes refs with any priority prefix, and writes every later ref and priority clamped to 00-99', async () => {
    const { bid, jids } = await writeForeignBatch(ctx, [
      { prefix: '100', priority: '100' },
      { prefix: '-1', priority: '-1' },
      { prefix: '5', priority: '5' },
    ]);
    await batchDone(ctx, bid);
    expect((await loadBatch(ctx, bid)).status).toBe('completed');
    const completed = await ctx.zk.getChildren('/jobs/states/completed');
    const [high, low, single] = jids as [string, string, string];
    expect(completed).toEqual(expect.arrayContaining([`99-${high}`, `00-${low}`, `05-${single}`]));
    const priorities = await Promise.all(
      jids.map(async (jid) => (await ctx.zk.getData(`/jobs/${jid}/priority`)).data?.toString()),
    );
    expect(priorities).toEqual(['99', '0', '5']);
    for (const folder of ['pending', 'estimating']) {
      const left = await ctx.zk.getChildren(`/jobs/states/${folder}`);
      expect(left.filter((name) => jids.some((jid) => name.endsWith(jid)))).toEqual([]);
    }
  });

  it('assembles an access request whose id, token and status appear one by one, as the Java library writes them', async () => {
    const created = await ctx.zk.create('/access/small/qid', null, 'persistent_sequential');
    const qid = created.slice('/access/small/'.length);
    await sleep(300);
    await ctx.zk.create(`${created}/token`, JSON.stringify({ token: 'java-1', 'cloud-content-byte': 10 }));
    await sleep(300);
    await ctx.zk.create(`${created}/status`, JSON.stringify({ status: 'Pending', last_modified: JAVA_TIME }));
    const done = await eventually(
      () => loadAccess(ctx, 'small', qid),
      (r) => r.status === 'completed',
      30_000,
    );
    expect(done.token).toMatchObject({ token: 'java-1' });
  });

  it('expands a batch whose status is written before its submission, once the submission is there', async () => {
    const created = await ctx.zk.create('/batches/bid', null, 'persistent_sequential');
    const bid = created.slice('/batches/'.length);
    await ctx.zk.create(`${created}/status`, JSON.stringify({ status: 'Pending', last_modified: JAVA_TIME }));
    await sleep(300);
    await ctx.zk.create(
      `${created}/submission`,
      JSON.stringify({ profile_name: 'demo', submitter: 'mrt', payload_url: 'sim:2', type: 'file' }),
    );
    await batchDone(ctx, bid);
    expect((await loadBatch(ctx, bid)).status).toBe('completed');
  });

  it('logs a job that cannot be used once, not at every event of its folder, and takes it once it is mended', async () => {
    const bad = await writeForeignBatch(ctx, [{ prefix: '05', priority: '5', configuration: '{not json' }]);
    const [jid] = bad.jids as [string];
    const aboutBad = (): Record<string, unknown>[] =>
      lines.filter((line) => line.jobId === jid && String(line.msg).includes('cannot be used'));
    await eventually(aboutBad, (found) => found.length > 0, 15_000);
    // Three more batches whose jobs pass through pending: events in the folder the bad job sits in.
    for (let i = 0; i < 3; i++)
      await batchDone(ctx, (await writeForeignBatch(ctx, [{ prefix: '05', priority: '5' }])).bid);
    expect(aboutBad()).toHaveLength(1);
    // An operator mends the configuration: the watch on the job's nodes brings it back.
    await ctx.zk.setData(
      `/jobs/${jid}/configuration`,
      JSON.stringify({
        profile_name: 'demo',
        submitter: 'mrt',
        payload_url: 'https://example.org/m.checkm',
        payload_type: 'object_manifest',
      }),
    );
    await batchDone(ctx, bad.bid);
    expect((await loadJob(ctx, jid)).status).toBe('completed');
  });

  it('lists a job whose status the lifecycle does not know with that status; doctor names it once; requeue --to and delete end it', async () => {
    const { bid, jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '5', status: 'Scanning' },
      { prefix: '05', priority: '5', status: 'Scanning' },
    ]);
    const [moved, dropped] = jids as [string, string];
    const listed = await listJobs(ctx, { batch: bid }, { offset: 0, limit: 10 });
    expect(listed.items.map((j) => [j.status, j.rawStatus])).toEqual([
      ['invalid', 'Scanning'],
      ['invalid', 'Scanning'],
    ]);

    const report = await doctor(ctx, { confirm: false });
    for (const jid of jids) {
      const aboutJob = report.problems.filter((p) => p.item === jid);
      expect(aboutJob.map((p) => p.code)).toEqual(['JOB_STATUS_UNKNOWN']);
      expect(aboutJob[0]?.message).toContain(`mrtq requeue ${jid} --to STATE`);
    }
    const folder = report.problems.find((p) => p.code === 'STATE_FOLDER_UNKNOWN');
    expect(folder?.path).toBe('/jobs/states/scanning');

    // Without --to the requeue says what to do; a known status refuses --to.
    const refused = await requeueJob(ctx, moved).catch((err: unknown) => err);
    expect(isQueueError(refused, 'INVALID_TRANSITION') && refused.message).toContain('--to');
    const badTarget = await requeueJob(ctx, moved, { to: 'completed' }).catch((err: unknown) => err);
    expect(isQueueError(badTarget, 'BAD_REQUEST')).toBe(true);

    expect((await requeueJob(ctx, moved, { to: 'estimating' })).status).toBe('estimating');
    expect((await deleteJob(ctx, dropped)).status).toBe('deleted');
    expect(await ctx.zk.getChildren('/jobs/states/scanning')).toEqual([]);
    expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-deleted`)).toEqual([dropped]);
    await batchDone(ctx, bid);
    const job = await loadJob(ctx, moved);
    expect([job.status, job.retryCount]).toEqual(['completed', 1]);
    const known = await requeueJob(ctx, moved, { to: 'estimating' }).catch((err: unknown) => err);
    expect(isQueueError(known, 'INVALID_TRANSITION')).toBe(true);
  });
});
