import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import {
  sessionCounts,
  sessionEvents,
  startChaosEnsemble,
  type ChaosEnsemble,
} from '../../support/chaos/zk-ensemble.js';
import type { EngineProcess } from '../../support/engine-process.js';
import { sleep } from '../../support/private-server.js';
import { waitTerminal } from '../../support/chaos/stuck.js';
import { MERRITT_HAPPY_PATH_COMMITS } from '../../support/lifecycle-paths.js';

const profile = chaosProfile();
const SESSION_TIMEOUT_MS = 4000;

describe('chaos 2, failover: ZooKeeper ensemble members killed (SIGKILL) and restarted while engines work', () => {
  let zk: ChaosEnsemble;
  // Kept, so that afterAll stops the ensemble even when beforeAll timed out while it was starting.
  let starting: Promise<ChaosEnsemble> | undefined;
  let dir: string;
  let cluster: EngineCluster | undefined;

  // Three members start together, each allowed 60 s to become ready.
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaos-failover-'));
    starting = startChaosEnsemble('failover');
    zk = await starting;
  }, 120_000);
  afterAll(async () => {
    cluster?.killAll();
    await starting?.then(
      (ensemble) => ensemble.stop(),
      () => undefined,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'keeps working through the loss of the leader and of a follower: no job lost, no transition twice, doctor clean',
    async () => {
      const startedAt = Date.now();
      const engines = profile.size(2, 3);
      // Enough work that every kill lands mid-run: a job keeps its engine from state to state, so
      // 600 jobs were done before the last kill of the long profile (400 jobs were all done before
      // the fast profile's last kill once a handed-over job waited for its slot).
      const jobs = profile.size(1000, 4000);
      // Each round kills the leader, restarts it, then kills a follower and restarts it.
      const rounds = profile.size(1, 3);
      cluster = new EngineCluster(() => zk.connectString, join(dir, 'ledger.jsonl'), ['--step-delay', '80'], {
        ZK_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
      });
      await cluster.start(engines);
      const processes: EngineProcess[] = [...cluster.running];
      const { bid } = await createBatch(zk.ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
      });

      // Progress is read from the ledger (a local file): the queue itself may be unreachable.
      const jobCommits = (): number =>
        cluster!.ledger().filter((e) => e.kind === 'commit' && e.item.startsWith('jid')).length;
      const allCommits = jobs * MERRITT_HAPPY_PATH_COMMITS;
      const waitForProgress = async (fraction: number): Promise<void> => {
        const until = Date.now() + profile.size(60_000, 600_000);
        while (jobCommits() < fraction * allCommits) {
          if (Date.now() > until)
            throw new Error(
              `stuck at ${jobCommits()} of ${allCommits} job commits (waiting for ${fraction})`,
            );
          await sleep(100);
        }
      };
      const counts = { engines, failovers: 0, follower_kills: 0, restarts: 0, election_ms_max: 0 };
      const commitsAtKills: number[] = [];
      const crash = async (index: number): Promise<void> => {
        commitsAtKills.push(jobCommits());
        await zk.ensemble.stopMember(index, true);
        const killedAt = Date.now();
        const leader = await zk.waitForLeader();
        counts.election_ms_max = Math.max(counts.election_ms_max, Date.now() - killedAt);
        expect(leader).not.toBe(index);
        await sleep(profile.between(1000, 3000));
        const before = jobCommits();
        await zk.ensemble.startMember(index);
        counts.restarts++;
        // The killed member rejoins and work goes on.
        await zk.waitForLeader();
        await waitForProgress(Math.min(1, (before + 1) / allCommits));
      };

      const steps = rounds * 2;
      for (let round = 0; round < rounds; round++) {
        await waitForProgress((round * 2 + 1) / (steps + 2));
        const leader = await zk.waitForLeader();
        await crash(leader);
        counts.failovers++;
        await waitForProgress((round * 2 + 2) / (steps + 2));
        const current = await zk.waitForLeader();
        const followers = [0, 1, 2].filter((i) => i !== current);
        await crash(profile.pick(followers));
        counts.follower_kills++;
      }
      // Every kill happened mid-run.
      expect(commitsAtKills.every((n) => n < allCommits)).toBe(true);

      await waitTerminal(zk.ctx, [bid], profile, profile.size(90_000, 600_000));
      const exits = await cluster.stopAll();
      expect(exits).toEqual(processes.map(() => 0));
      const sessions = processes.flatMap(sessionEvents);
      await finishScenario({
        scenario: 'failover',
        profile,
        ctx: zk.ctx,
        batches: [{ bid, jobs }],
        ledger: cluster.ledger(),
        counts: {
          ...counts,
          ...sessionCounts(sessions),
        },
        startedAt,
      });
      expect(counts.failovers).toBe(rounds);
    },
    profile.size(150_000, 900_000),
  );
});
