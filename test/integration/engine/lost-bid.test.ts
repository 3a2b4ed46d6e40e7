import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { createHttpApi } from '../../../src/http/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import type { ProvisionOutput } from '../../../machines/index.js';
import type { JobStepArgs } from '../../../src/steps/contracts.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { ledgerCommitted } from '../../support/ledger-committed.js';
import { writeForeignBatch } from '../../support/foreign-items.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

// Every failure reaches its batch, and limits mean what they say (issue 32, items 4 and 5): a job
// whose bid node is deleted while it waits for space in provisioning is failed when the
// incomplete-job limit says (before: at the next re-evaluation of waiting jobs, 30 s by default),
// is still counted in the batch whose folder holds it, and is shown meanwhile.

const chroot = useZkChroot();
const LIMIT_MS = 3000;
/**
 * Above 1.1 × the limit: the look the lost node's watch makes, the failing multi, and the test's
 * own polling (every 20 ms), on a 2-core machine shared with other test processes, where a timer
 * or a ZooKeeper answer is seen late by up to a few hundred milliseconds (measured here: 0.05 s).
 */
const BUSY_MACHINE_MS = 500;

const headers = { authorization: `Bearer ${TOKEN}` };

describe('a job whose bid node is deleted while it waits in provisioning', () => {
  let engine: Engine | undefined;
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('is shown and named while it waits, fails within 10 % of the incomplete-job limit, and its batch reports once', async () => {
    const ctx = queueContext(await chroot.connect());
    const ledger: LedgerEntry[] = [];
    const simulated = createSimulatedSteps();
    // Never enough space: the job waits in provisioning, looked at again only at re-evaluations.
    const provision = (_args: JobStepArgs): Promise<ProvisionOutput> =>
      Promise.resolve({ hasSpace: false, message: 'waiting for working space (simulated)' });
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...simulated,
        jobSteps: { ...simulated.jobSteps, steps: { ...simulated.jobSteps.steps, provision } },
        ledger: { record: (entry) => ledger.push(entry) },
        log: pino({ level: 'silent' }),
      },
      // The re-evaluation of waiting jobs far away: only a timer can end the wait in this test.
      { sweepIntervalMs: 0, provisioningIntervalMs: 600_000, incompleteJobFailMs: LIMIT_MS },
    );
    await engine.start();
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:1',
      type: 'manifest',
    });
    const [ref] = await eventually(
      () => listBatchJobs(ctx, bid),
      (jobs) => jobs.length === 1,
      30_000,
    );
    const jid = ref!.jid;
    await eventually(
      () => ledger.filter((e) => e.kind === 'commit' && e.item === jid && e.to === 'provisioning'),
      (commits) => commits.some((e) => e.state === 'provisioning'),
      30_000,
    );

    await ctx.zk.delete(`/jobs/${jid}/bid`);
    const lostAt = performance.now();

    // Meanwhile: doctor names the job and the batch that holds it; the API shows the job.
    const report = await doctor(ctx, { confirm: false });
    const missing = report.problems.find((p) => p.code === 'JOB_BID_MISSING' && p.item === jid);
    expect(missing?.message).toContain(`batch ${bid} (batch-processing) holds it`);
    const app = createHttpApi(await apiDeps(ctx));
    try {
      const shown = await app.inject({ method: 'GET', url: `/jobs/${jid}`, headers });
      expect(shown.statusCode, shown.body).toBe(200);
      expect(shown.json()).toMatchObject({ job: { jobId: jid, batchId: '', bidMissing: true } });

      const failed = await eventually(
        () => loadJob(ctx, jid, { bidOptional: true }),
        (job) => job.status !== 'provisioning',
        30_000,
        20,
      );
      const waitedMs = performance.now() - lostAt;
      expect(failed).toMatchObject({ status: 'failed', batchId: bid });
      expect(failed.message).toContain(`/jobs/${jid}/bid is missing`);
      expect(waitedMs).toBeGreaterThanOrEqual(LIMIT_MS);
      expect(waitedMs).toBeLessThanOrEqual(1.1 * LIMIT_MS + BUSY_MACHINE_MS);

      const batch = await batchSettled(ctx, bid);
      expect(batch.status).toBe('failed');
      await ledgerCommitted(ledger, bid, { event: 'report.done' });
      expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-failed`)).toEqual([jid]);
      expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-processing`)).toEqual([]);
      expect(
        ledger.filter((e) => e.kind === 'commit' && e.item === bid && e.event === 'report.done'),
      ).toHaveLength(1);
      const after = await app.inject({ method: 'GET', url: `/jobs/${jid}`, headers });
      expect(after.statusCode, after.body).toBe(200);
      expect(after.json()).toMatchObject({ job: { jobId: jid, batchId: bid, status: 'failed' } });
    } finally {
      await app.close();
    }
  }, 90_000);
});

describe('an operator action on a job without its bid node', () => {
  it('writes back the bid of the batch that holds the job, then acts on it as on any job', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { bid, jids } = await writeForeignBatch(ctx, [{ prefix: '05', priority: '5' }]);
    const [jid] = jids as [string];
    await ctx.zk.delete(`/jobs/${jid}/bid`);
    const app = createHttpApi(await apiDeps(ctx));
    try {
      const failed = await app.inject({
        method: 'POST',
        url: `/jobs/${jid}/fail`,
        headers,
        payload: { reason: 'its batch is gone' },
      });
      expect(failed.statusCode, failed.body).toBe(200);
      expect(failed.json()).toMatchObject({ job: { jobId: jid, batchId: bid, status: 'failed' } });
      expect((await ctx.zk.getData(`/jobs/${jid}/bid`)).data?.toString()).toBe(bid);
      expect(await ctx.zk.getChildren(`/batches/${bid}/states/batch-failed`)).toEqual([jid]);

      // Held by no batch at all: refused, saying what to write.
      await ctx.zk.delete(`/jobs/${jid}/bid`);
      await ctx.zk.delete(`/batches/${bid}/states/batch-failed/${jid}`);
      const refused = await app.inject({
        method: 'POST',
        url: `/jobs/${jid}/delete`,
        headers,
        payload: { reason: 'orphaned' },
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json<{ message: string }>().message).toContain(
        `/jobs/${jid}/bid is missing and no batch lists job ${jid}`,
      );
      const shown = await app.inject({ method: 'GET', url: `/jobs/${jid}`, headers });
      expect(shown.statusCode, shown.body).toBe(200);
    } finally {
      await app.close();
    }
  }, 60_000);
});
