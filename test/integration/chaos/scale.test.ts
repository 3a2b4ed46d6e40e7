import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rssMb } from '../../../src/bench/scale.js';
import { createBatch } from '../../../src/queue/batch-create.js';
import { loadBatch } from '../../../src/queue/batch-load.js';
import type { QueueContext } from '../../../src/queue/context.js';
import { ensureQueueTree } from '../../../src/queue/tree-init.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const profile = chaosProfile();

/** The bound on an engine's resident memory (benchmark issue: 100,000 pending jobs). */
const RSS_LIMIT_MB = 300;

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
      await cluster.start(2);
      const { bid } = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
      });
      let peakRss = 0;
      const until = Date.now() + profile.size(150_000, 1_800_000);
      for (;;) {
        for (const engine of cluster.running) peakRss = Math.max(peakRss, rssMb(engine.pid));
        const { status } = await loadBatch(ctx, bid);
        if (status === 'completed' || status === 'failed') break;
        if (Date.now() > until) throw new Error(`batch still ${status} after the time allowed`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const runSeconds = (Date.now() - startedAt) / 1000;
      expect(await cluster.stopAll()).toEqual([0, 0]);
      await finishScenario({
        scenario: 'scale',
        profile,
        ctx,
        batches: [{ bid, jobs }],
        ledger: cluster.ledger(),
        counts: { engines: 2, peak_rss_mb: Math.round(peakRss), run_s: Math.round(runSeconds) },
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
