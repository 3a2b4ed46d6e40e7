import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { requeueJob } from '../../../src/admin/jobs.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { ledgerCommitted } from '../../support/ledger-committed.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { writeForeignBatch } from '../../support/foreign-items.js';
import { createHttpApi } from '../../../src/http/index.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

const chroot = useZkChroot();

describe('a job written without its optional nodes', () => {
  let engine: Engine | undefined;
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('is reported by doctor, estimated once, and completes with the node created', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // Written as another tool writes them, one without space_needed, one without priority.
    const { jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '5', withoutSpaceNeeded: true },
      { prefix: '05' },
    ]);
    const [noSpace, noPriority] = jids as [string, string];

    const report = await doctor(ctx, { confirm: false });
    expect(report.problems.filter((p) => p.code === 'JOB_NODE_MISSING').map((p) => p.path)).toEqual([
      `/jobs/${noSpace}/space_needed`,
      `/jobs/${noPriority}/priority`,
    ]);

    const ledger: LedgerEntry[] = [];
    const simulated = createSimulatedSteps();
    // An estimate that changes both nodes, as the real one does for a large object.
    const estimate = () => Promise.resolve({ spaceNeeded: 4096, priority: 20 });
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...simulated,
        jobSteps: { ...simulated.jobSteps, steps: { ...simulated.jobSteps.steps, estimate } },
        ledger: { record: (entry) => ledger.push(entry) },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0 },
    );
    await engine.start();

    const estimates = (jid: string) =>
      ledger.filter((e) => e.kind === 'start' && e.item === jid && e.state === 'estimating').length;
    for (const jid of [noSpace, noPriority]) {
      // Done, or estimating again (which without the fix it does forever, many times a second).
      const job = await eventually(
        () => loadJob(ctx, jid),
        (j) => j.status === 'completed' || j.status === 'failed' || estimates(jid) > 1,
        30_000,
      );
      expect(estimates(jid)).toBe(1);
      expect(job).toMatchObject({ status: 'completed', spaceNeeded: 4096, priority: 20 });
      expect(job.absentNodes).toBeUndefined();
    }
    expect((await ctx.zk.getData(`/jobs/${noSpace}/space_needed`)).data?.toString()).toBe('4096');
    expect((await ctx.zk.getData(`/jobs/${noPriority}/priority`)).data?.toString()).toBe('20');
    const after = await doctor(ctx, { confirm: false });
    expect(after.problems.filter((p) => p.code === 'JOB_NODE_MISSING')).toEqual([]);
  });
});

describe('a job without a node it needs', () => {
  let engine: Engine | undefined;
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('fails once it has stayed so, naming the node, from whichever state it is in; its batch reports; written and requeued, it completes', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { bid, jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '5' },
      { prefix: '05', priority: '5' },
      { prefix: '05', priority: '5', status: 'Downloading' },
      { prefix: '05', priority: '5', status: 'Estimating' },
    ]);
    const [whole, noConfiguration, noStatus, estimatingWithout] = jids as [string, string, string, string];
    const configuration = (await ctx.zk.getData(`/jobs/${noConfiguration}/configuration`)).data!;
    await ctx.zk.delete(`/jobs/${noConfiguration}/configuration`);
    await ctx.zk.delete(`/jobs/${noStatus}/status`);
    await ctx.zk.delete(`/jobs/${estimatingWithout}/configuration`);

    const ledger: LedgerEntry[] = [];
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: (entry) => ledger.push(entry) },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0, incompleteJobFailMs: 1500 },
    );
    await engine.start();

    const failedWith = async (jid: string, node: string) => {
      const job = await eventually(
        () => loadJob(ctx, jid).catch(() => undefined),
        (j) => j?.status === 'failed',
        30_000,
      );
      expect(job!.message).toContain(`/jobs/${jid}/${node} is missing`);
      return job!;
    };
    // Pending: failed as a rejected job; its configuration is still missing, so only the status
    // can be read (loadJob refuses it): read it raw.
    const rawStatus = async (jid: string) =>
      JSON.parse((await ctx.zk.getData(`/jobs/${jid}/status`)).data!.toString()) as Record<string, unknown>;
    await eventually(
      () => rawStatus(noConfiguration),
      (s) => s.status === 'Failed',
      30_000,
    );
    expect(String((await rawStatus(noConfiguration)).message)).toContain(
      `/jobs/${noConfiguration}/configuration is missing`,
    );
    // Downloading, its status node gone: written anew, as failed, with the job's ref moved.
    const statusless = await failedWith(noStatus, 'status');
    expect(statusless.retryCount).toBe(0);
    await eventually(
      () => rawStatus(estimatingWithout),
      (s) => s.status === 'Failed',
      30_000,
    );
    expect(await ctx.zk.getChildren('/jobs/states/failed')).toEqual(
      expect.arrayContaining([`05-${noConfiguration}`, `05-${noStatus}`, `05-${estimatingWithout}`]),
    );
    for (const state of ['pending', 'downloading', 'estimating'])
      expect(await ctx.zk.getChildren(`/jobs/states/${state}`)).toEqual([]);
    // None of them ran a step; the whole one completed, and the batch was reported.
    for (const jid of [noConfiguration, noStatus, estimatingWithout])
      expect(ledger.filter((e) => e.kind === 'start' && e.item === jid)).toEqual([]);
    expect((await loadJob(ctx, whole)).status).toBe('completed');
    await eventually(
      async () =>
        JSON.parse((await ctx.zk.getData(`/batches/${bid}/status`)).data!.toString()) as { status: string },
      (s) => s.status !== 'Processing' && s.status !== 'Reporting',
      30_000,
    );
    expect((await ctx.zk.getChildren(`/batches/${bid}/states/batch-failed`)).sort()).toEqual(
      [noConfiguration, noStatus, estimatingWithout].sort(),
    );

    // Written by an operator and requeued: it runs like any failed job.
    await ctx.zk.create(`/jobs/${noConfiguration}/configuration`, configuration);
    await requeueJob(ctx, noConfiguration);
    await eventually(
      () => loadJob(ctx, noConfiguration),
      (j) => j.status === 'completed',
      30_000,
    );
  });
});

describe('a job whose bid node is deleted', () => {
  let engine: Engine | undefined;
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('fails naming the node and is still counted in the batch that holds it: the batch reports once, doctor names both, the API answers', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { bid, jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '5' },
      { prefix: '05', priority: '5' },
    ]);
    const [whole, orphan] = jids as [string, string];
    await ctx.zk.delete(`/jobs/${orphan}/bid`);
    // Before any engine: doctor names the job and the batch that holds it.
    const before = await doctor(ctx, { confirm: false });
    const missing = before.problems.find((p) => p.code === 'JOB_BID_MISSING');
    expect(missing?.item).toBe(orphan);
    expect(missing?.message).toContain(`batch ${bid} (batch-processing) holds it`);

    const ledger: LedgerEntry[] = [];
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: (entry) => ledger.push(entry) },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0, incompleteJobFailMs: 1500 },
    );
    await engine.start();
    const batchStatus = async () =>
      JSON.parse((await ctx.zk.getData(`/batches/${bid}/status`)).data!.toString()) as { status: string };
    // Before: the job failed, but its batch waited for it for ever and never reported.
    await eventually(batchStatus, (s) => s.status === 'Failed' || s.status === 'Completed', 30_000);
    await ledgerCommitted(ledger, bid, { to: 'failed' });
    const failed = await loadJob(ctx, orphan);
    expect(failed).toMatchObject({ status: 'failed', batchId: bid });
    expect(failed.message).toContain(`/jobs/${orphan}/bid is missing`);
    expect(failed.message).toContain(`written back as ${bid}`);
    expect((await loadJob(ctx, whole)).status).toBe('completed');
    expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-failed`)).toEqual([orphan]);
    expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-processing`)).toEqual([]);
    expect(ledger.filter((e) => e.kind === 'commit' && e.item === bid && e.to === 'failed')).toHaveLength(1);
    const after = await doctor(ctx, { confirm: false });
    expect(after.problems.filter((p) => p.item === orphan || p.item === bid)).toEqual([]);
    // Every route answers for it.
    const app = createHttpApi(await apiDeps(ctx));
    try {
      const headers = { authorization: `Bearer ${TOKEN}` };
      for (const url of [
        `/jobs/${orphan}`,
        `/batches/${bid}`,
        `/batches/${bid}/timeline`,
        `/jobs?batch=${bid}`,
        `/search?q=${orphan}`,
      ])
        expect((await app.inject({ method: 'GET', url, headers })).statusCode, url).toBe(200);
    } finally {
      await app.close();
    }
  });
});
