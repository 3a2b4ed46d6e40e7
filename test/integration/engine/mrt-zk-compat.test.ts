import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
// The Java library writes java.util.Date#toString; the Ruby one Time#to_s.
const JAVA_TIME = 'Sat Nov 21 09:34:25 UTC 2026';

/**
 * Writes a batch already expanded into jobs, node by node, the way Merritt's mrt-zk library does
 * (Batch.createBatch / acquirePendingBatch, Job.createJob): no keys of this engine's own.
 */
async function writeMrtZkBatch(ctx: QueueContext, jobs: number): Promise<{ bid: string; jids: string[] }> {
  const { zk } = ctx;
  const bid = (await zk.create('/batches/bid', null, 'persistent_sequential')).slice('/batches/'.length);
  await zk.create('/batch-uuids/b6a1-mrtzk', bid);
  await zk.create(
    `/batches/${bid}/submission`,
    JSON.stringify({
      profile_name: 'merritt_demo',
      submitter: 'mrt',
      payload_url: 'https://example.org/m.checkm',
      type: 'manifest',
      batchID: 'b6a1-mrtzk',
    }),
  );
  await zk.create(
    `/batches/${bid}/status`,
    JSON.stringify({ status: 'Processing', last_modified: JAVA_TIME }),
  );
  await zk.mkdirp(`/batches/${bid}/states/batch-processing`);
  const jids: string[] = [];
  for (let i = 0; i < jobs; i++) {
    const jid = (await zk.create('/jobs/jid', null, 'persistent_sequential')).slice('/jobs/'.length);
    await zk.create(`/jobs/${jid}/bid`, bid);
    await zk.create(`/jobs/${jid}/priority`, i === 0 ? '3' : '5');
    await zk.create(`/jobs/${jid}/space_needed`, '0');
    await zk.create(
      `/jobs/${jid}/configuration`,
      JSON.stringify({
        profile_name: 'merritt_demo',
        submitter: 'mrt',
        payload_url: `https://example.org/${i}.checkm`,
        payload_type: 'object_manifest',
        response_type: 'tbd',
      }),
    );
    await zk.create(
      `/jobs/${jid}/status`,
      JSON.stringify({
        status: 'Pending',
        last_successful_status: null,
        last_modified: JAVA_TIME,
        retry_count: 0,
      }),
    );
    await zk.create(`/jobs/states/pending/${i === 0 ? '03' : '05'}-${jid}`);
    await zk.create(`/batches/${bid}/states/batch-processing/${jid}`);
    jids.push(jid);
  }
  return { bid, jids };
}

describe('items written by Merritt mrt-zk', () => {
  let ctx: QueueContext;
  let engine: Engine;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });
  afterAll(async () => {
    await engine?.stop(1000);
  });

  it('are run to completion by this engine and reported, and doctor finds nothing wrong', async () => {
    const { bid, jids } = await writeMrtZkBatch(ctx, 3);
    expect(await doctor(ctx)).toMatchObject({ ok: true });
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
      },
      { sweepIntervalMs: 0 },
    );
    await engine.start();
    const batch = await eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'completed',
      30_000,
    );
    expect(batch.expansion).toBe('foreign');
    const report = JSON.parse((await ctx.zk.getData(`/batches/${bid}/status-report`)).data!.toString()) as {
      successful_jobs: string[];
    };
    expect(report.successful_jobs.sort()).toEqual([...jids].sort());
    const first = await loadJob(ctx, jids[0]!);
    expect(first).toMatchObject({ status: 'completed', priority: 3, lastSuccessfulStatus: 'notify' });
    expect(await ctx.zk.exists(`/jobs/states/completed/03-${jids[0]}`)).toBeDefined();
    expect(await doctor(ctx)).toMatchObject({ ok: true });
  });
});
