import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { doctor } from '../../../src/queue/doctor.js';
import { loadJob } from '../../../src/queue/job-load.js';
import { ensureQueueTree } from '../../../src/queue/tree-init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { writeForeignBatch } from '../../support/foreign-items.js';

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
