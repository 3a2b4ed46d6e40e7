import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { jobPath } from '../../../src/queue/tree/paths.js';
import { serverMode } from '../../../src/zk-server/four-letter.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import { checkLedger } from '../../support/chaos/ledger-check.js';
import { NetLab, netnsUnavailable, sweepStaleNamespaces } from '../../support/chaos/netns.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { waitTerminal } from '../../support/chaos/stuck.js';
import {
  currentSession,
  sessionCounts,
  sessionEvents,
  startChaosEnsemble,
  type ChaosEnsemble,
} from '../../support/chaos/zk-ensemble.js';
import type { EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { sleep } from '../../support/private-server.js';
import { inFlightSteps, keyOf, waitUntil } from '../../support/chaos/ledger-steps.js';
import { MERRITT_HAPPY_PATH_COMMITS } from '../../support/lifecycle-paths.js';

/**
 * Chaos 10: partitions, not only crashes. Three ZooKeeper members and three engines, each in its
 * own network namespace (test/support/chaos/netns.ts), the network between them broken four ways:
 * an engine cut off, the leader isolated from its followers, a one-way partition, and loss with
 * delay on an engine's link. The invariants of every chaos scenario hold after each.
 */

const profile = chaosProfile();
const SESSION_TIMEOUT_MS = 4000;
const env = { ZK_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) };
const MEMBERS = ['zk1', 'zk2', 'zk3'];
const ENGINES = ['e1', 'e2', 'e3'];
/** The engine whose link is impaired in the loss-and-delay scenario. */
const IMPAIRED = 'e3';

const unavailable = netnsUnavailable();
if (unavailable) console.log(`chaos 10, partitions: skipped, ${unavailable}`);

/** An engine process and the namespace it runs in. */
interface PlacedEngine {
  node: string;
  process: EngineProcess;
}

describe.skipIf(unavailable !== undefined)(
  `chaos 10, partitions: ensemble members and engines on their own network namespaces${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let lab: NetLab | undefined;
    let zk: ChaosEnsemble;
    // Kept, so that afterAll stops the ensemble even when beforeAll timed out while it was starting.
    let starting: Promise<ChaosEnsemble> | undefined;
    let dir: string;
    // One set of engines for every scenario (starting three takes about 7 s on 2 cores), each in
    // its own namespace, sharing one ledger; each scenario checks its own batches.
    let cluster: EngineCluster | undefined;
    const engines: PlacedEngine[] = [];

    beforeAll(async () => {
      const swept = sweepStaleNamespaces();
      if (swept.length > 0) console.log(`removed namespaces an earlier run left: ${swept.join(', ')}`);
      dir = mkdtempSync(join(tmpdir(), 'chaos-partition-'));
      lab = await NetLab.create({ nodes: [...MEMBERS, ...ENGINES], impairable: [IMPAIRED] });
      const net = lab;
      starting = startChaosEnsemble('partition', {
        hosts: MEMBERS.map((m) => net.address(m)),
        commandPrefix: (i) => net.commandPrefix(MEMBERS[i]!),
      });
      zk = await starting;
      cluster = new EngineCluster(
        () => zk.connectString,
        join(dir, 'ledger.jsonl'),
        ['--step-delay', String(profile.size(100, 200))],
        env,
      );
      const c = cluster;
      await Promise.all(
        ENGINES.map(async (node) =>
          engines.push({ node, process: await c.startOne([], net.commandPrefix(node)) }),
        ),
      );
    }, 120_000);

    // Whatever a scenario did to the network, the next one starts on a whole one.
    afterEach(async () => {
      await lab?.heal();
    });

    // Torn down whatever happened: engines, ensemble, then every namespace (and what is left in them).
    afterAll(async () => {
      try {
        await lab?.heal();
        if (cluster && engines.length === ENGINES.length) {
          // Stopped gracefully, they end with 0.
          const exits = await cluster.stopAll();
          expect(exits, 'exit codes of the engines').toEqual(engines.map(() => 0));
          // No transition committed twice, no step run after its commit, over every scenario.
          const whole = checkLedger(cluster.ledger());
          expect([...whole.duplicates, ...whole.runsAfterCommit], 'the whole ledger').toEqual([]);
        }
      } finally {
        try {
          cluster?.killAll();
          await starting?.then(
            (ensemble) => ensemble.stop(),
            () => undefined,
          );
        } finally {
          lab?.destroy();
          if (dir) rmSync(dir, { recursive: true, force: true });
        }
      }
    });

    async function submit(jobs: number): Promise<string> {
      const { bid } = await createBatch(zk.ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
      });
      return bid;
    }

    const jobCommits = (since = 0, pid?: number): number =>
      cluster!
        .ledger()
        .filter(
          (e) =>
            e.kind === 'commit' &&
            e.item.startsWith('jid') &&
            e.t >= since &&
            (pid === undefined || e.pid === pid),
        ).length;

    /** Waits until `fraction` of a new batch's job commits are in (so work is under way). */
    async function waitForProgress(before: number, jobs: number, fraction: number): Promise<void> {
      await waitUntil(
        `${fraction} of ${jobs} jobs' commits`,
        60_000,
        () => jobCommits() - before >= jobs * MERRITT_HAPPY_PATH_COMMITS * fraction,
      );
    }

    /** One of `among` that is mid-step now (tried for up to 10 s). */
    async function engineHoldingLocks(among: readonly PlacedEngine[]): Promise<PlacedEngine> {
      const until = Date.now() + 10_000;
      for (;;) {
        const ledger = cluster!.ledger();
        const busy = among.filter((e) => inFlightSteps(ledger, e.process.pid).size > 0);
        if (busy.length > 0) return profile.pick(busy);
        if (Date.now() > until) throw new Error('no engine held a lock mid-step within 10 s');
        await sleep(50);
      }
    }

    /** Of steps `keys` (`jid@version`), those whose job is still at that version. */
    async function unmoved(keys: readonly string[]): Promise<string[]> {
      const jobs = await Promise.all(keys.map((key) => loadJob(zk.ctx, key.split('@')[0]!)));
      return keys.filter((key, i) => key === `${jobs[i]!.jobId}@${jobs[i]!.statusVersion}`);
    }

    /**
     * Of steps `keys`, those whose job is still at that version and locked by `session`: a step
     * in the ledger may have started on a job another engine's session still held the lock of.
     */
    async function lockedBy(keys: readonly string[], session: string | undefined): Promise<string[]> {
      const still = await unmoved(keys);
      const locks = await Promise.all(
        still.map((key) => zk.ctx.zk.exists(`${jobPath(key.split('@')[0]!)}/lock`)),
      );
      return still.filter((_, i) => session !== undefined && locks[i]?.ephemeralOwner === session);
    }

    /** The mode (`leader`, `follower`, or undefined: not serving) of each member. */
    const modes = (): Promise<(string | undefined)[]> =>
      Promise.all(zk.ensemble.members.map((m) => serverMode(m.host, m.port)));

    /** Waits for the scenario's batches to end, then checks every invariant on them. */
    async function finish(
      scenario: string,
      batches: { bid: string; jobs: number }[],
      counts: Record<string, number>,
      startedAt: number,
    ): Promise<void> {
      await waitTerminal(
        zk.ctx,
        batches.map((b) => b.bid),
        profile,
        profile.size(60_000, 600_000),
      );
      // Every engine is still running (none ended on what was done to its network).
      for (const e of engines) expect(e.process.proc.exitCode, `engine ${e.node} running`).toBeNull();
      const sessions = engines.flatMap((e) => sessionEvents(e.process)).filter((e) => e.time >= startedAt);
      // The ledger lines of this scenario's items (the engines and their ledger serve every
      // scenario; afterAll checks the whole ledger once more).
      const items = new Set(batches.map((b) => b.bid));
      for (const { bid } of batches) for (const { jid } of await listBatchJobs(zk.ctx, bid)) items.add(jid);
      // The tree shows a batch ended when ZooKeeper commits it; its engine writes the commit's
      // ledger line when the reply comes, or (a reply lost to the cut) when it checks the commit
      // on reconnecting: wait for every batch's report before counting the reports.
      await eventually(
        () => {
          const reported = new Set(
            cluster!
              .ledger()
              .filter((e) => e.kind === 'commit' && e.event === 'report.done')
              .map((e) => e.item),
          );
          return batches.map((b) => b.bid).filter((bid) => !reported.has(bid));
        },
        (unreported) => unreported.length === 0,
        120_000,
        250,
      );
      await finishScenario({
        scenario,
        profile,
        ctx: zk.ctx,
        batches,
        ledger: cluster!.ledger().filter((e) => items.has(e.item)),
        counts: { ...counts, ...sessionCounts(sessions) },
        startedAt,
      });
    }

    it(
      'an engine cut off from the ensemble: its locks expire, its steps are taken over, none of its stale work commits',
      async () => {
        const startedAt = Date.now();
        const rounds = profile.size(1, 4);
        const jobs = profile.size(40, 125);
        const batches: { bid: string; jobs: number }[] = [];
        const counts = {
          engines: 3,
          cuts: 0,
          short_cuts: 0,
          locks_held_cut: 0,
          taken_over: 0,
          stale_discards: 0,
          cut_ms_max: 0,
        };
        let misses = 0;
        for (let round = 0; round < rounds; round++) {
          // One batch a round, so that every cut finds work left.
          if (batches.length === round) {
            const before = jobCommits();
            batches.push({ bid: await submit(jobs), jobs });
            await waitForProgress(before, jobs, 0.25);
          }
          const victim = await engineHoldingLocks(engines);
          const sessionBefore = currentSession(victim.process);
          lab!.cut(victim.node);
          const cutAt = Date.now();
          // A commit sent just before the cut may have landed, its ledger line a moment after.
          await sleep(300);
          const held = [...inFlightSteps(cluster!.ledger(), victim.process.pid).keys()];
          const stranded = await lockedBy(held, sessionBefore);
          if (stranded.length === 0) {
            // Cut between steps, or on steps whose lock it had not got: not this case; again.
            lab!.restore(victim.node);
            expect(++misses, 'cut an engine holding locks within 20 tries').toBeLessThan(20);
            round--;
            await sleep(profile.between(100, 500));
            continue;
          }
          counts.cuts++;
          // The long profile also cuts for less than the session timeout: the session survives.
          const short = profile.name === 'long' && round % 2 === 1;
          if (short) {
            counts.short_cuts++;
            await sleep(SESSION_TIMEOUT_MS / 2);
          } else {
            counts.locks_held_cut += stranded.length;
            // Its session expires on the ensemble, its locks go, and the other engines move its jobs on.
            await waitUntil(
              'steps of the engine cut off taken over',
              45_000,
              async () => (await unmoved(stranded)).length === 0,
            );
            counts.taken_over += stranded.length;
            expect(Date.now() - cutAt).toBeGreaterThanOrEqual(SESSION_TIMEOUT_MS - 1000);
          }
          counts.cut_ms_max = Math.max(counts.cut_ms_max, Date.now() - cutAt);
          lab!.restore(victim.node);
          // Every step it held ends without a commit of its own.
          await waitUntil('stale steps ended', 30_000, () => {
            const ended = cluster!.ledger().filter((e) => e.pid === victim.process.pid && e.kind !== 'start');
            return stranded.every((key) => ended.some((e) => keyOf(e) === key));
          });
          const stale = cluster!
            .ledger()
            .filter((e) => e.pid === victim.process.pid && e.kind !== 'start' && stranded.includes(keyOf(e)));
          if (!short) expect(stale.filter((e) => e.kind === 'commit')).toEqual([]);
          counts.stale_discards += stale.filter((e) => e.kind === 'discard').length;
          // It is connected again (with a new session after a long cut) and goes on working.
          await waitUntil('connected again', 30_000, () => {
            const now = currentSession(victim.process);
            const last = sessionEvents(victim.process).at(-1);
            return last?.state === 'connected' && (short || (now !== undefined && now !== sessionBefore));
          });
        }
        await finish('partition-cut-off', batches, counts, startedAt);
        expect(counts.cuts).toBe(rounds);
      },
      profile.size(90_000, 900_000),
    );

    it(
      'the leader isolated from its followers: they elect another, engines move, nothing lost or done twice',
      async () => {
        const startedAt = Date.now();
        const rounds = profile.size(1, 3);
        const jobs = profile.size(40, 150);
        const batches: { bid: string; jobs: number }[] = [];
        const counts = {
          engines: 3,
          isolations: 0,
          election_ms_max: 0,
          stepped_down_ms_max: 0,
          rejoined_ms_max: 0,
          commits_isolated: 0,
        };
        for (let round = 0; round < rounds; round++) {
          const before = jobCommits();
          const bid = await submit(jobs);
          batches.push({ bid, jobs });
          await waitForProgress(before, jobs, 0.25);
          const leader = await zk.waitForLeader();
          const followers = [0, 1, 2].filter((i) => i !== leader);
          // Engines and this test still reach the old leader; only its followers do not.
          lab!.isolate(
            MEMBERS[leader]!,
            followers.map((i) => MEMBERS[i]!),
          );
          const isolatedAt = Date.now();
          counts.isolations++;
          let elected = -1;
          let steppedDown = false;
          await waitUntil('a follower elected leader, the old leader stepped down', 60_000, async () => {
            const now = await modes();
            const newLeader = followers.find((i) => now[i] === 'leader');
            if (newLeader !== undefined && elected < 0) {
              elected = newLeader;
              counts.election_ms_max = Math.max(counts.election_ms_max, Date.now() - isolatedAt);
            }
            if (now[leader] !== 'leader' && !steppedDown) {
              steppedDown = true;
              counts.stepped_down_ms_max = Math.max(counts.stepped_down_ms_max, Date.now() - isolatedAt);
            }
            return elected >= 0 && steppedDown;
          });
          const electedAt = Date.now();
          // Work goes on through the new quorum while the old leader is still cut from it.
          await waitUntil(
            'commits through the new quorum',
            30_000,
            async () =>
              jobCommits(electedAt) > 0 ||
              (await loadBatch(zk.ctx, bid).then(
                (b) => b.status !== 'processing',
                () => false,
              )),
          );
          await sleep(profile.between(500, 3000));
          counts.commits_isolated += jobCommits(isolatedAt);
          await lab!.heal();
          const healedAt = Date.now();
          // The old leader rejoins as a follower.
          await waitUntil('the old leader back as a follower', 60_000, async () => {
            const now = await modes();
            return (
              now.filter((m) => m === 'leader').length === 1 &&
              now.every((m) => m === 'leader' || m === 'follower')
            );
          });
          counts.rejoined_ms_max = Math.max(counts.rejoined_ms_max, Date.now() - healedAt);
        }
        await finish('partition-leader', batches, counts, startedAt);
        expect(counts.isolations).toBe(rounds);
      },
      profile.size(90_000, 900_000),
    );

    it(
      'a one-way partition between an engine and the ensemble: nothing it cannot hear about commits twice',
      async () => {
        const startedAt = Date.now();
        const rounds = profile.size(1, 4);
        const jobs = profile.size(40, 125);
        const batches: { bid: string; jobs: number }[] = [];
        const counts = {
          engines: 3,
          deaf_rounds: 0,
          mute_rounds: 0,
          steps_in_flight_blocked: 0,
          victim_commits_blocked: 0,
          others_commits_blocked: 0,
          victim_suspended: 0,
        };
        for (let round = 0; round < rounds; round++) {
          const before = jobCommits();
          const bid = await submit(jobs);
          batches.push({ bid, jobs });
          await waitForProgress(before, jobs, 0.25);
          const victim = await engineHoldingLocks(engines);
          // Even rounds: the ensemble hears the engine, the engine hears nothing (its requests
          // land, their answers are lost). Odd rounds (long profile): the other way round.
          const deaf = round % 2 === 0;
          for (const member of MEMBERS) {
            if (deaf) lab!.block(member, victim.node);
            else lab!.block(victim.node, member);
          }
          const blockedAt = Date.now();
          if (deaf) counts.deaf_rounds++;
          else counts.mute_rounds++;
          counts.steps_in_flight_blocked += inFlightSteps(cluster!.ledger(), victim.process.pid).size;
          // Past the session timeout, and until the others have committed something meanwhile.
          await sleep(SESSION_TIMEOUT_MS + 1000);
          await waitUntil(
            'commits by the other engines',
            30_000,
            async () =>
              engines.some((e) => e !== victim && jobCommits(blockedAt, e.process.pid) > 0) ||
              (await loadBatch(zk.ctx, bid).then(
                (b) => b.status !== 'processing',
                () => false,
              )),
          );
          // It hears no answer, so it can record no commit (lines written just after the block excepted).
          const victimCommits = jobCommits(blockedAt + 500, victim.process.pid);
          expect(victimCommits, 'commits the blocked engine heard of').toBe(0);
          counts.victim_commits_blocked += victimCommits;
          counts.others_commits_blocked += jobCommits(blockedAt) - jobCommits(blockedAt, victim.process.pid);
          counts.victim_suspended += sessionEvents(victim.process).filter(
            (e) => e.time > blockedAt && (e.state === 'suspended' || e.state === 'expired'),
          ).length;
          await lab!.heal();
          await waitUntil(
            'connected again',
            30_000,
            () => sessionEvents(victim.process).at(-1)?.state === 'connected',
          );
        }
        await finish('partition-one-way', batches, counts, startedAt);
        expect(counts.victim_suspended).toBeGreaterThan(0);
      },
      profile.size(90_000, 900_000),
    );

    it(
      "30 % packet loss and 200 ms delay on an engine's link: it goes slowly, nothing lost or done twice",
      async () => {
        const startedAt = Date.now();
        // Enough work that the other two engines are still busy when the link is repaired.
        const jobs = profile.size(320, 2500);
        const windowMs = profile.size(8_000, 60_000);
        const impaired = engines.find((e) => e.node === IMPAIRED)!;
        const before = jobCommits();
        const bid = await submit(jobs);
        await waitForProgress(before, jobs, 0.05);
        // Made bad while the engine holds locks mid-step.
        await engineHoldingLocks([impaired]);
        const statsBefore = await lab!.linkStats(IMPAIRED);
        await lab!.impair(IMPAIRED, { lossPercent: 30, delayMs: 200 });
        const impairedAt = Date.now();
        // For the window, or until nine tenths of the batch is done.
        await waitUntil(
          'the end of the window',
          windowMs + 1000,
          () =>
            Date.now() - impairedAt >= windowMs ||
            jobCommits() - before >= jobs * MERRITT_HAPPY_PATH_COMMITS * 0.9,
        );
        const statsAfter = await lab!.linkStats(IMPAIRED);
        await lab!.clearImpairment(IMPAIRED);
        const repairedAt = Date.now();
        const during = cluster!
          .ledger()
          .filter((e) => e.pid === impaired.process.pid && e.t >= impairedAt && e.t < repairedAt);
        const counts: Record<string, number> = {
          engines: 3,
          impaired_s: Math.round((repairedAt - impairedAt) / 100) / 10,
          work_left_at_repair: Math.round(
            100 - ((jobCommits() - before) * 100) / (jobs * MERRITT_HAPPY_PATH_COMMITS),
          ),
          impaired_starts: during.filter((e) => e.kind === 'start').length,
          impaired_commits: during.filter((e) => e.kind === 'commit').length,
          impaired_discards: during.filter((e) => e.kind === 'discard').length,
          impaired_sessions_lost: sessionEvents(impaired.process).filter(
            (e) => e.time >= impairedAt && e.time < repairedAt && e.state === 'expired',
          ).length,
        };
        if (statsBefore && statsAfter) {
          counts.packets_passed = statsAfter.passed - statsBefore.passed;
          counts.packets_dropped = statsAfter.dropped - statsBefore.dropped;
        }
        // Repaired, it is connected again.
        await waitUntil(
          'the impaired engine connected again',
          30_000,
          () => sessionEvents(impaired.process).at(-1)?.state === 'connected',
        );
        await finish('partition-lossy', [{ bid, jobs }], counts, startedAt);
      },
      profile.size(90_000, 900_000),
    );
  },
);
