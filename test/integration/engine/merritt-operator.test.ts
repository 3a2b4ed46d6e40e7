import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { createHttpApi } from '../../../src/http/index.js';
import { createAccess, loadAccess } from '../../../src/queue/access/requests.js';
import { failJob, holdJob, requeueJob } from '../../../src/admin/jobs.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { isQueueError } from '../../../src/queue/tree/errors.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { pauseQueue, resumeQueue } from '../../../src/queue/locks/queue-pause.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { JAVA_TIME, writeForeignBatch } from '../../support/foreign-items.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

const chroot = useZkChroot();

/** Rewrites a foreign job as failed after `lastSuccess`, its refs where Merritt keeps a failed job's. */
async function makeFailed(ctx: QueueContext, bid: string, jid: string, lastSuccess: string): Promise<void> {
  const status = {
    status: 'Failed',
    last_successful_status: lastSuccess,
    last_modified: JAVA_TIME,
    retry_count: 0,
  };
  const pending = (await ctx.zk.getChildren('/jobs/states/pending')).find((n) => n.endsWith(jid))!;
  await ctx.zk.multi([
    { op: 'set', path: `/jobs/${jid}/status`, data: JSON.stringify(status) },
    { op: 'delete', path: `/jobs/states/pending/${pending}` },
    { op: 'create', path: `/jobs/states/failed/05-${jid}` },
    { op: 'delete', path: `/batches/${bid}/states/batch-processing/${jid}` },
    { op: 'create', path: `/batches/${bid}/states/batch-failed/${jid}` },
  ]);
}

describe('pause and operator actions with Merritt’s semantics (merritt-protocols.md §6)', () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('requeue resumes after last_successful_status by mrt-admin’s table: Storing → Recording, Processing → Storing', async () => {
    const { bid, jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '5' },
      { prefix: '05', priority: '5' },
    ]);
    const [afterStoring, afterProcessing] = jids as [string, string];
    await ctx.zk.mkdirp(`/batches/${bid}/states/batch-failed`);
    await makeFailed(ctx, bid, afterStoring, 'Storing');
    await makeFailed(ctx, bid, afterProcessing, 'Processing');
    expect(await requeueJob(ctx, afterStoring)).toMatchObject({ status: 'recording', retryCount: 1 });
    expect(await requeueJob(ctx, afterProcessing)).toMatchObject({ status: 'storing', retryCount: 1 });
    const written = JSON.parse(
      (await ctx.zk.getData(`/jobs/${afterStoring}/status`)).data!.toString(),
    ) as object;
    expect(written).toMatchObject({ status: 'Recording', last_successful_status: 'Storing', retry_count: 1 });
    expect(await ctx.zk.getChildren('/jobs/states/storing')).toContain(`05-${afterProcessing}`);
  });

  it('fail: a working job becomes failed whoever holds its lock; its storage and inventory locks go; its batch moves on', async () => {
    const { bid, jids } = await writeForeignBatch(ctx, [{ prefix: '05', priority: '5', status: 'Storing' }]);
    const [jid] = jids as [string];
    const ark = 'ark:/13030/m5fail';
    await ctx.zk.create(`/jobs/${jid}/identifiers`, JSON.stringify({ primary_id: ark, local_id: [] }));
    // As Merritt names them: ark.replaceAll(":?/", "_"); the storage lock is persistent there.
    await ctx.zk.mkdirp('/locks/storage');
    await ctx.zk.mkdirp('/locks/inventory');
    await ctx.zk.create('/locks/storage/ark_13030_m5fail');
    const other = queueContext(await chroot.connect());
    await other.zk.create('/locks/inventory/ark_13030_m5fail', null, 'ephemeral');
    await other.zk.create(`/jobs/${jid}/lock`, null, 'ephemeral');
    const refused = await holdJob(ctx, jid).catch((err: unknown) => err);
    expect(isQueueError(refused, 'LOCK_HELD') || isQueueError(refused, 'INVALID_TRANSITION')).toBe(true);

    const { job, releasedLocks } = await failJob(ctx, jid, { reason: 'storage node 9501 is gone' });
    expect(job).toMatchObject({
      status: 'failed',
      message: 'failed by an operator: storage node 9501 is gone',
    });
    expect(releasedLocks.sort()).toEqual([
      '/locks/inventory/ark_13030_m5fail',
      '/locks/storage/ark_13030_m5fail',
    ]);
    expect(await ctx.zk.exists('/locks/storage/ark_13030_m5fail')).toBeUndefined();
    expect(await ctx.zk.exists('/locks/inventory/ark_13030_m5fail')).toBeUndefined();
    expect(await ctx.zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();
    expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-failed`)).toEqual([jid]);
    expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-processing`)).toEqual([]);
    // Failed, final and held jobs are refused without touching anything.
    await expect(failJob(ctx, jid)).rejects.toSatisfy((e) => isQueueError(e, 'INVALID_TRANSITION'));
    // Its last success is kept as written (none here), so a requeue resumes where mrt-admin's table says.
    expect((await loadJob(ctx, jid)).lastSuccessfulStatus).toBeNull();
  });

  it('POST /jobs/:jid/fail needs the token, and answers 409 for a job the lifecycle does not let fail', async () => {
    const app: FastifyInstance = createHttpApi(await apiDeps(ctx));
    try {
      const { jids } = await writeForeignBatch(ctx, [{ prefix: '05', priority: '5', status: 'Downloading' }]);
      const [jid] = jids as [string];
      expect((await app.inject({ method: 'POST', url: `/jobs/${jid}/fail` })).statusCode).toBe(401);
      const headers = { authorization: `Bearer ${TOKEN}` };
      const ok = await app.inject({
        method: 'POST',
        url: `/jobs/${jid}/fail`,
        headers,
        payload: { reason: 'stuck' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ job: { status: 'failed', message: 'failed by an operator: stuck' } });
      const again = await app.inject({
        method: 'POST',
        url: `/jobs/${jid}/fail`,
        headers,
        payload: { reason: 'twice' },
      });
      expect(again.statusCode).toBe(409);
    } finally {
      await app.close();
    }
  });

  it('pause ingest: jobs waiting in every state acquire nothing while /locks/queue/ingest exists, and go on once it is removed', async () => {
    await pauseQueue(ctx, 'ingest');
    const states = [
      'Pending',
      'Estimating',
      'Provisioning',
      'Downloading',
      'Processing',
      'Storing',
      'Recording',
      'Notify',
    ];
    const { bid, jids } = await writeForeignBatch(
      ctx,
      states.map((status) => ({ prefix: '05', priority: '5', status })),
    );
    const engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0 },
    );
    await engine.start();
    try {
      // The engine is live (it serves the access queue, which the ingest pause does not hold):
      // a request written after the jobs is assembled, so it has seen every job folder by then.
      const qid = await createAccess(ctx, 'small', { token: 'paused-proof' });
      await eventually(
        () => loadAccess(ctx, 'small', qid),
        (r) => r.status === 'completed',
        30_000,
      );
      for (const [i, jid] of jids.entries()) {
        expect((await loadJob(ctx, jid)).status).toBe(states[i]!.toLowerCase());
        expect(await ctx.zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();
      }
      await resumeQueue(ctx, 'ingest');
      const done = await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed' || b.status === 'failed',
        60_000,
      );
      expect(done.status).toBe('completed');
      for (const jid of jids) expect((await loadJob(ctx, jid)).status).toBe('completed');
    } finally {
      await engine.stop(1000);
    }
  });
});
