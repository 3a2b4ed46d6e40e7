import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const profile = chaosProfile();

describe('chaos 1, crash: engine processes killed with SIGKILL and restarted while they work', () => {
  let ctx: QueueContext;
  let dir: string;
  let cluster: EngineCluster;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = mkdtempSync(join(tmpdir(), 'chaos-crash-'));
  });
  afterAll(() => {
    cluster?.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'loses no job, commits no transition twice, reports the batch once, and leaves doctor nothing',
    async () => {
      const startedAt = Date.now();
      const jobs = profile.size(150, 500);
      // Short sessions, so a killed process's locks free up soon; a little work per step, so
      // kills land in the middle of steps.
      cluster = new EngineCluster(
        () => chroot.connectString(),
        join(dir, 'ledger.jsonl'),
        ['--step-delay', '30'],
        {
          ZK_SESSION_TIMEOUT_MS: '4000',
        },
      );
      await cluster.start(3);
      const { bid } = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
      });
      const until = Date.now() + profile.size(60_000, 600_000);
      const done = async () => ['completed', 'failed'].includes((await loadBatch(ctx, bid)).status);
      // Kills are paced by the work, not by the clock alone: the first lands as soon as steps
      // are running (a fast machine once finished the fast batch before a fixed first pause
      // was over), the next ones at random pauses while work is left.
      while (cluster.ledger().length === 0 && Date.now() < until) await sleep(50);
      const [killMin = 400, killMax = 1200] = profile.size([400, 1200], [1000, 3000]);
      let pause = profile.between(0, 300);
      while (!(await done())) {
        if (Date.now() > until) break;
        await sleep(pause);
        if (!(await done())) await cluster.killOneAndReplace(profile);
        pause = profile.between(killMin, killMax);
      }
      expect(await done(), 'the batch finished in time').toBe(true);
      expect(cluster.kills, 'kills while the batch had work left').toBeGreaterThan(0);
      const exits = await cluster.stopAll();
      expect(exits).toEqual([0, 0, 0]);
      await finishScenario({
        scenario: 'crash',
        profile,
        ctx,
        batches: [{ bid, jobs }],
        ledger: cluster.ledger(),
        counts: { engines: 3, kills: cluster.kills },
        startedAt,
      });
    },
    profile.size(120_000, 900_000),
  );
});
