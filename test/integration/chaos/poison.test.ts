import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import type { EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const profile = chaosProfile();
/** Short sessions: a dead engine's locks go within seconds, so the job is taken again soon. */
const SESSION_MS = '4000';

/**
 * Restarts every engine that ends, as systemd or Kubernetes would, and counts the deaths; stops
 * restarting once told to.
 */
class Supervisor {
  deaths = 0;
  private stopped = false;
  /** Restarts under way (an engine starting takes a few seconds). */
  private readonly restarting = new Set<Promise<unknown>>();

  constructor(private readonly cluster: EngineCluster) {}

  watch(engine: EngineProcess): void {
    void engine.exited.then(() => {
      if (this.stopped) return;
      this.deaths++;
      this.cluster.running.splice(this.cluster.running.indexOf(engine), 1);
      const restart = this.cluster.startOne().then((next) => this.watch(next));
      this.restarting.add(restart);
      void restart.finally(() => this.restarting.delete(restart));
    });
  }

  /** Restarts no more engines; resolves once those starting are up. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.restarting]);
  }
}

describe('chaos, poison: a job whose step ends its engine, among 100, under a supervisor restarting three engines', () => {
  let ctx: QueueContext;
  let dir: string;
  let cluster: EngineCluster | undefined;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = mkdtempSync(join(tmpdir(), 'chaos-poison-'));
  });
  afterAll(() => {
    cluster?.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'fails the poison job after at most 3 deaths, with the engines named; the other 99 complete; one report',
    async () => {
      const startedAt = Date.now();
      const jobs = 100;
      const poisonAt = 37;
      cluster = new EngineCluster(
        () => chroot.connectString(),
        join(dir, 'ledger.jsonl'),
        ['--step-delay', '5'],
        { ZK_SESSION_TIMEOUT_MS: SESSION_MS },
      );
      await cluster.start(3);
      const supervisor = new Supervisor(cluster);
      for (const engine of cluster.running) supervisor.watch(engine);
      const { bid } = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
        simulate: { exitAt: { [poisonAt]: 'storing' } },
      });
      const batch = await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed' || b.status === 'failed',
        profile.size(180_000, 600_000),
        200,
      );
      await supervisor.stop();
      const deaths = supervisor.deaths;
      // The batch failed: one of its jobs did. Which one, and why:
      expect(batch.status).toBe('failed');
      const listed = await listBatchJobs(ctx, bid);
      const failed = listed.filter((j) => j.folder === 'batch-failed');
      expect(failed).toHaveLength(1);
      const poison = await loadJob(ctx, failed[0]!.jid);
      expect(poison.configuration.simulate_exit_at).toBe('storing');
      expect(poison.lastSuccessfulStatus).toBe('processing');
      expect(poison.message).toMatch(/^poison: the storing step of this job was started 3 times/);
      expect(poison.message).toContain('requeue the job');
      // At most 3 process deaths, each named in the message by its engine.
      expect(deaths).toBeGreaterThanOrEqual(3);
      expect(deaths).toBeLessThanOrEqual(3);
      expect(poison.message?.match(/engine [^ ]+ \(session [0-9a-f]+\)/g)).toHaveLength(3);
      const exits = await cluster.stopAll();
      expect(exits.every((code) => code === 0)).toBe(true);
      await finishScenario({
        scenario: 'poison',
        profile,
        ctx,
        batches: [{ bid, jobs, terminal: (position) => (position === poisonAt ? 'failed' : 'completed') }],
        ledger: cluster.ledger(),
        counts: { engines: 3, deaths },
        startedAt,
      });
    },
    profile.size(240_000, 900_000),
  );
});
