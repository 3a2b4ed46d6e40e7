import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cpuSeconds, rssMb } from '../../../src/bench/scale.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import type { LedgerLine } from '../../support/chaos/ledger-check.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const profile = chaosProfile();

/** The bound on an engine's resident memory (benchmark issue: 100,000 pending jobs). */
const RSS_LIMIT_MB = 300;

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Where the run's time went, from the ledger: submission to the end of expansion, the first job
 * transition to the last job's completion, and that to the batch's report committed.
 */
function phaseSeconds(ledger: readonly LedgerLine[], bid: string, submittedAt: number) {
  const commits = ledger.filter((line) => line.kind === 'commit');
  const expanded = commits.find((line) => line.item === bid && line.event === 'expand.done');
  let firstJob = Infinity;
  let lastJob = -Infinity;
  for (const line of commits) {
    if (!line.item.startsWith('jid')) continue;
    firstJob = Math.min(firstJob, line.t);
    lastJob = Math.max(lastJob, line.t);
  }
  const reported = commits.find(
    (line) => line.item === bid && (line.to === 'completed' || line.to === 'failed'),
  );
  if (!expanded || !reported || !Number.isFinite(firstJob))
    throw new Error('the ledger lacks the expansion, the jobs or the report');
  return {
    expand: (expanded.t - submittedAt) / 1000,
    jobs: (lastJob - firstJob) / 1000,
    report: (reported.t - lastJob) / 1000,
  };
}

describe('chaos 7, resource limits: one very large batch, expanded, run, reported and cleaned up', () => {
  let ctx: QueueContext;
  let dir: string;
  let cluster: EngineCluster;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = mkdtempSync(join(tmpdir(), 'chaos-scale-'));
  });
  afterAll(() => {
    cluster?.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'runs every job once within the memory bound, reports once, and cleanup leaves nothing of it',
    async () => {
      const startedAt = Date.now();
      const jobs = profile.size(1500, 50_000);
      cluster = new EngineCluster(() => chroot.connectString(), join(dir, 'ledger.jsonl'));
      // One engine, as the benchmark measures: on this 2-core machine a second engine process
      // only adds contention with ZooKeeper (other scenarios run several).
      await cluster.start(1);
      const [engine] = cluster.running;
      const zkPid = inject('zkPid');
      const zkCpuBefore = zkPid ? cpuSeconds(zkPid) : Number.NaN;
      const submittedAt = Date.now();
      const { bid } = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
      });
      let peakRss = 0;
      const until = Date.now() + profile.size(150_000, 1_800_000);
      for (;;) {
        peakRss = Math.max(peakRss, rssMb(engine!.pid));
        const { status } = await loadBatch(ctx, bid);
        if (status === 'completed' || status === 'failed') break;
        if (Date.now() > until) throw new Error(`batch still ${status} after the time allowed`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const runSeconds = (Date.now() - startedAt) / 1000;
      const engineCpu = cpuSeconds(engine!.pid);
      const zkCpu = zkPid ? cpuSeconds(zkPid) - zkCpuBefore : Number.NaN;
      expect(await cluster.stopAll()).toEqual([0]);
      const phases = phaseSeconds(cluster.ledger(), bid, submittedAt);
      await finishScenario({
        scenario: 'scale',
        profile,
        ctx,
        batches: [{ bid, jobs }],
        ledger: cluster.ledger(),
        counts: {
          engines: 1,
          peak_rss_mb: Math.round(peakRss),
          // CPU seconds used until the batch was done: the engine process (since its start) and
          // the ZooKeeper server (since submission; absent when it is not a local process).
          engine_cpu_s: Math.round(engineCpu),
          ...(Number.isFinite(zkCpu) ? { zookeeper_cpu_s: Math.round(zkCpu) } : {}),
          run_s: Math.round(runSeconds),
          expand_s: round1(phases.expand),
          jobs_s: round1(phases.jobs),
          jobs_per_s: Math.round(jobs / phases.jobs),
          report_s: round1(phases.report),
        },
        startedAt,
      });
      expect(peakRss).toBeLessThan(RSS_LIMIT_MB);

      // Cleanup (a real `mrtq cleanup` process) removes the batch and every job of it.
      const cleaned = await runCli(
        ['cleanup', '--retention', '0s', '--json', '--zk', chroot.connectString()],
        {},
        300_000,
      );
      expect(cleaned.code, cleaned.stderr).toBe(0);
      expect(await ctx.zk.exists(`/batches/${bid}`)).toBeUndefined();
      const left = await ctx.zk.getChildren('/jobs');
      expect(left.filter((name) => name.startsWith('jid'))).toEqual([]);
      for (const state of ['completed', 'failed'])
        expect(await ctx.zk.getChildren(`/jobs/states/${state}`)).toEqual([]);
    },
    profile.size(240_000, 2_400_000),
  );
});
