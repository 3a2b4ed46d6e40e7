import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { holdCollection } from '../../../src/queue/locks/queue-pause.js';
import { releaseCollection } from '../../../src/admin/collections.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { eventually } from '../../support/eventually.js';
import { ledgerCommitted } from '../../support/ledger-committed.js';

const chroot = useZkChroot();

describe('one engine, driven by watchers alone (no sweep)', () => {
  let ctx: QueueContext;
  let engine: Engine;
  const ledger: LedgerEntry[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: (entry) => ledger.push(entry) },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0, provisioningIntervalMs: 3_600_000 },
    );
    await engine.start();
  });
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('runs a 200-job batch through every state to completed and reports it once', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:200',
      type: 'manifest',
    });
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      60_000,
    );
    expect(batch.jobCount).toBe(200);
    await ledgerCommitted(ledger, bid, { event: 'report.done' });
    const report = JSON.parse((await ctx.zk.getData(`/batches/${bid}/status-report`)).data!.toString()) as {
      failed_jobs: string[];
      successful_jobs: string[];
    };
    expect(report.failed_jobs).toEqual([]);
    expect(report.successful_jobs).toHaveLength(200);
    const commits = ledger.filter((e) => e.kind === 'commit');
    // Each of the 200 jobs: pending, estimating, provisioning, downloading, processing, storing, recording, notify.
    const jobCommits = commits.filter((e) => e.item.startsWith('jid'));
    expect(jobCommits).toHaveLength(200 * 8);
    expect(new Set(jobCommits.map((e) => `${e.item}:${e.state}`)).size).toBe(200 * 8);
    const batchCommits = commits.filter((e) => e.item === bid).map((e) => e.event);
    expect(batchCommits).toEqual(['batch.acquired', 'expand.done', 'batch.jobs-done', 'report.done']);
    const sample = await loadJob(ctx, report.successful_jobs[0]!);
    expect(sample).toMatchObject({ status: 'completed', lastSuccessfulStatus: 'notify' });
  }, 90_000);

  it('fails only the jobs told to fail, and the batch reports failed listing them', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:5',
      type: 'manifest',
      simulate: { failAt: { '1': 'downloading', '3': 'notify' } },
    });
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'failed',
      30_000,
    );
    expect(batch.message).toBeNull();
    const report = JSON.parse((await ctx.zk.getData(`/batches/${bid}/status-report`)).data!.toString()) as {
      failed_jobs: string[];
      successful_jobs: string[];
    };
    expect(report.failed_jobs).toHaveLength(2);
    expect(report.successful_jobs).toHaveLength(3);
    const failed = await Promise.all(report.failed_jobs.map((jid) => loadJob(ctx, jid)));
    expect(failed.map((j) => j.message).sort()).toEqual([
      'simulated failure while downloading',
      'simulated failure while notify',
    ]);
  });

  it('a batch whose payload cannot be expanded fails with the reason', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'https://x/y',
      type: 'file',
    });
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'failed',
      30_000,
    );
    expect(batch.message).toContain('simulated steps expand only');
  });

  it('holds the pending jobs of a held collection, and runs them once it is released', async () => {
    await holdCollection(ctx, 'held-coll');
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:3',
      type: 'manifest',
      collection: 'held-coll',
    });
    // The batch itself is held at the pending step, before any job exists.
    await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'held',
      30_000,
    );
    const released = await releaseCollection(ctx, 'held-coll');
    expect(released.batches).toEqual([bid]);
    const done = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      30_000,
    );
    expect(done.jobCount).toBe(3);
  });
});
