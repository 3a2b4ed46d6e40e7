import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Config } from '../config/config.js';
import type { QueueContext } from '../queue/tree/context.js';
import { packagePath } from '../package-root.js';
import { ensureQueueTree } from '../queue/tree/init.js';
import { connectZk, type ZkClient } from '../zk/index.js';
import { provideZooKeeper } from '../zk-server/provider.js';
import { undoneOnInterrupt } from './interrupt.js';
import { baselineRate } from './baseline.js';
import { createCeiling, multiCeiling } from './ceiling.js';
import { cliStartTime } from './cli-start.js';
import { describeMachine, type MachineDescription } from './machine.js';
import { persist } from './retry.js';
import { engineAtScale, seedPendingJobs } from './scale.js';
import { median, repeat, round } from './stats.js';
import { completionLatency, engineThroughput, expansionRate } from './throughput.js';
import { fairShares } from './fair-shares.js';
import { merrittJobLifecycle } from '../../machines/index.js';

/** How big a run is. `quick` keeps CI's run short; the default is the full sizes. */
export interface BenchOptions {
  quick: boolean;
  /** Jobs of the engine-throughput batch (default 5,000; quick 300). */
  jobs?: number;
  /** Repetitions of each measurement; the median is reported (default 3; quick 1). */
  repeat?: number;
  /** Where results are written (default bench/results; none when empty). */
  resultsDir?: string;
  /** Progress lines (stderr). */
  progress?: (line: string) => void;
}

/** Every figure, named with its unit. */
export interface BenchResult {
  date: string;
  profile: 'quick' | 'full';
  repeat: number;
  machine: MachineDescription;
  ceiling_multi_1_tx_per_s: number;
  ceiling_multi_64_tx_per_s: number;
  ceiling_create_64_per_s: number;
  engine_jobs: number;
  /** The batch run before the measured ones (same size), not counted: see runBench. */
  engine_warm_up_jobs_per_s: number;
  engine_jobs_per_s: number;
  engine_transitions_per_s: number;
  engine_transitions_per_job: number;
  engine_zk_requests_per_job: number;
  engine_cpu_ms_per_job: number;
  ratio_transitions_to_ceiling: number;
  completion_latency_batches: number;
  completion_latency_ms_p50: number;
  completion_latency_ms_p99: number;
  expansion_objects: number;
  expansion_jobs_per_s: number;
  scale_pending_jobs: number;
  rss_mb_100k_pending: number;
  first_acquire_ms: number;
  engine_startup_ms: number;
  baseline_jobs: number;
  baseline_jobs_per_s: number;
  ratio_engine_to_baseline: number;
  cli_help_ms: number;
  cli_help_ms_from_source: number;
  /** The engine's batch with fair shares off (the intake in priority and id order alone). */
  engine_jobs_per_s_without_fair_shares: number;
  ratio_jobs_per_s_fair_to_unfair: number;
  /** Issue 34: a small batch of B submitted behind a big batch of A's backlog. */
  fair_big_jobs: number;
  fair_big_backlog_at_submit: number;
  fair_small_jobs: number;
  fair_small_batch_s: number;
  fair_big_drain_s: number;
  ratio_fair_small_to_big_drain: number;
  targets: Record<string, { target: string; value: number; met: boolean }>;
}

/** The targets on a 2-core machine shared by ZooKeeper and the engine. */
function targetsOf(r: Omit<BenchResult, 'targets'>): BenchResult['targets'] {
  const t = (target: string, value: number, met: boolean) => ({ target, value, met });
  return {
    engine_jobs_per_s: t('>= 500', r.engine_jobs_per_s, r.engine_jobs_per_s >= 500),
    // Issue 22: 0.45 (0.35 before it), and the engine's CPU per job half of the about 4 ms.
    ratio_transitions_to_ceiling: t(
      '>= 0.45',
      r.ratio_transitions_to_ceiling,
      r.ratio_transitions_to_ceiling >= 0.45,
    ),
    engine_cpu_ms_per_job: t('<= 2', r.engine_cpu_ms_per_job, r.engine_cpu_ms_per_job <= 2),
    ratio_engine_to_baseline: t('>= 10', r.ratio_engine_to_baseline, r.ratio_engine_to_baseline >= 10),
    completion_latency_ms_p50: t('<= 20', r.completion_latency_ms_p50, r.completion_latency_ms_p50 <= 20),
    completion_latency_ms_p99: t('<= 100', r.completion_latency_ms_p99, r.completion_latency_ms_p99 <= 100),
    expansion_jobs_per_s: t('>= 5000', r.expansion_jobs_per_s, r.expansion_jobs_per_s >= 5000),
    rss_mb_100k_pending: t('<= 300', r.rss_mb_100k_pending, r.rss_mb_100k_pending <= 300),
    first_acquire_ms: t('<= 1000', r.first_acquire_ms, r.first_acquire_ms <= 1000),
    cli_help_ms: t('<= 300', r.cli_help_ms, r.cli_help_ms <= 300),
    // Issue 34: fairness costs at most 5 % of the jobs a second; B does not wait for A's backlog
    // (equal weights: its 20 jobs are taken within about 40 of A's; 0.1 leaves the pipeline room).
    ratio_jobs_per_s_fair_to_unfair: t(
      '>= 0.95',
      r.ratio_jobs_per_s_fair_to_unfair,
      r.ratio_jobs_per_s_fair_to_unfair >= 0.95,
    ),
    ratio_fair_small_to_big_drain: t(
      '<= 0.1',
      r.ratio_fair_small_to_big_drain,
      r.ratio_fair_small_to_big_drain <= 0.1,
    ),
  };
}

/** A session on its own chroot of the bench server: every measurement starts from an empty tree. */
export async function chrootQueue(
  server: string,
  name: string,
): Promise<{ connectString: string; zk: ZkClient; queue: QueueContext }> {
  const connectString = `${server}/${name}`;
  // A long session: a server writing a snapshot of a big tree may pause for seconds.
  const zk = await persist('connect', () => connectZk({ connectString, sessionTimeoutMs: 30_000 }));
  await persist('queue tree', () => ensureQueueTree(zk));
  return {
    connectString,
    zk,
    queue: { zk, lifecycle: merrittJobLifecycle, log: pino({ level: 'silent' }), now: () => new Date() },
  };
}

/**
 * Runs every measurement of issue #10 against a ZooKeeper the bench starts itself (or ZK_CONNECT),
 * each `repeat` times, and reports medians. Ceiling and engine run side by side in one run, so
 * their ratio holds on a noisy machine.
 */
export async function runBench(config: Config, options: BenchOptions): Promise<BenchResult> {
  const quick = options.quick;
  const times = options.repeat ?? (quick ? 1 : 3);
  const jobs = options.jobs ?? (quick ? 300 : 5000);
  const say = options.progress ?? (() => undefined);
  const sizes = {
    ceilingMs: quick ? 1000 : 3000,
    latencyBatches: quick ? 10 : 100,
    expansion: quick ? 2000 : 20_000,
    pending: quick ? 5000 : 100_000,
    baseline: quick ? 100 : 1000,
    fairBig: quick ? 2000 : 20_000,
    fairSmall: 20,
  };
  const work = mkdtempSync(join(tmpdir(), 'mrtq-bench-'));
  const sessions: ZkClient[] = [];
  const servers: { stop(): Promise<void> }[] = [];
  /**
   * A fresh ZooKeeper for a group of measurements: ZooKeeper keeps its whole tree in memory, so
   * one server for every measurement would hold over a million nodes by the end and measure its
   * own garbage collection. The ceiling and the engine share one (their ratio is the point).
   */
  const freshServer = async (name: string): Promise<string> => {
    // Stopped by cleanUp even when interrupted while it starts (a stop is safe twice).
    const server = await provideZooKeeper({
      dir: join(work, name),
      config,
      onStarting: (stop) => servers.push({ stop }),
    });
    servers.push(server);
    say(`ZooKeeper for ${name}: ${server.connectString} (${server.source})`);
    return server.connectString;
  };
  const chroot = async (server: string, name: string) => {
    const made = await chrootQueue(server, name);
    sessions.push(made.zk);
    return made;
  };
  // Once, whether by the end of the run or by an interrupt (see interrupt.ts).
  const cleanUp = async () => {
    await Promise.allSettled(sessions.splice(0).map((zk) => zk.close()));
    await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
    rmSync(work, { recursive: true, force: true });
  };
  return undoneOnInterrupt(cleanUp, async () => {
    const main = await freshServer('ceiling-and-engine');
    const { zk: raw } = await chroot(main, 'ceiling');
    const multi1 = median(
      await repeat(times, (run) =>
        multiCeiling(raw, { inFlight: 1, durationMs: sizes.ceilingMs, root: `/m1-${run}` }),
      ),
    );
    const multi64 = median(
      await repeat(times, (run) =>
        multiCeiling(raw, { inFlight: 64, durationMs: sizes.ceilingMs, root: `/m64-${run}` }),
      ),
    );
    const create64 = median(
      await repeat(times, (run) =>
        createCeiling(raw, { inFlight: 64, durationMs: sizes.ceilingMs, root: `/c64-${run}` }),
      ),
    );
    say(
      `ceiling: multi 1 in flight ${round(multi1)} tx/s, 64 in flight ${round(multi64)} tx/s; creates ${round(create64)}/s`,
    );

    // One batch first, not counted: a ZooKeeper just started compiles (JIT) the request paths the
    // engine uses and the ceiling does not (creates and deletes, listings, watches, multiReads)
    // during its first several thousand jobs, its compiler thread taking about a third of a core
    // of the two the engine and it share; this process compiles the engine's paths meanwhile.
    // The measured runs are of a warm server and a warm engine, as a service meets them.
    const warmUp = await (async () => {
      const { connectString, queue } = await chroot(main, 'engine-warm-up');
      return engineThroughput(connectString, queue, jobs, { fairShares: true });
    })();
    say(`engine warm-up (not counted): ${jobs} jobs, ${round(warmUp.jobsPerS)} jobs/s`);

    // Each run measures the batch with fair shares and without (what they cost), in alternating
    // order: this process warms up as it goes, and the first run of a bench is its slowest.
    const pairs = await repeat(times, async (run) => {
      const measure = async (fairShares: boolean) => {
        const { connectString, queue } = await chroot(main, `engine-${fairShares ? '' : 'unfair-'}${run}`);
        return engineThroughput(connectString, queue, jobs, { fairShares });
      };
      const first = await measure(run % 2 === 0);
      const second = await measure(run % 2 !== 0);
      const [fair, unfair] = run % 2 === 0 ? [first, second] : [second, first];
      say(
        `engine run ${run + 1}: ${round(fair.jobsPerS)} jobs/s, ${round(fair.zkRequestsPerJob)} requests/job, ${round(fair.cpuMsPerJob, 2)} ms CPU/job; without fair shares ${round(unfair.jobsPerS)} jobs/s`,
      );
      return { fair, unfair };
    });
    const runs = pairs.map((pair) => pair.fair);
    const pick = (key: keyof (typeof runs)[number]) => median(runs.map((r) => r[key]));
    const unfair = median(pairs.map((pair) => pair.unfair.jobsPerS));
    say(`engine without fair shares: ${round(unfair)} jobs/s`);

    const fair = await (async () => {
      const { connectString, queue } = await chroot(main, 'fair-shares');
      return fairShares(connectString, queue, sizes.fairBig, sizes.fairSmall);
    })();
    say(
      `fair shares: ${fair.smallJobs}-job batch of B done in ${round(fair.smallBatchSeconds, 2)} s behind ${fair.bigBacklogAtSubmit} jobs of A (A's backlog took ${round(fair.bigDrainSeconds, 2)} s)`,
    );

    const latency = await (async () => {
      const { connectString, queue } = await chroot(main, 'latency');
      return completionLatency(connectString, queue, sizes.latencyBatches);
    })();
    say(`completion latency: p50 ${round(latency.p50Ms)} ms, p99 ${round(latency.p99Ms)} ms`);

    const baseline = median(
      await repeat(times, async (run) => {
        const { zk } = await chroot(main, `baseline-${run}`);
        const result = await baselineRate(zk, {
          root: '/baseline',
          jobs: sizes.baseline,
          workersPerState: 4,
          idlePollMs: 100,
        });
        return result.jobsPerS;
      }),
    );
    say(`baseline (documented recipe): ${round(baseline)} jobs/s`);

    const expansion = median(
      await repeat(times, async (run) => {
        const server = await freshServer(`expansion-${run}`);
        const { connectString, queue } = await chroot(server, 'expansion');
        return expansionRate(connectString, queue, sizes.expansion);
      }),
    );
    say(`expansion: ${round(expansion)} jobs/s`);

    const scale = await (async () => {
      const server = await freshServer('scale');
      const { connectString, queue } = await chroot(server, 'scale');
      await seedPendingJobs(queue, sizes.pending);
      return engineAtScale(connectString, join(work, 'scale-ledger.jsonl'), sizes.pending);
    })();
    say(
      `scale: ${scale.pendingJobs} pending, ${round(scale.rssMbPeak)} MB, first acquire ${round(scale.firstAcquireMs)} ms`,
    );

    const cli = cliStartTime(quick ? 3 : 10);
    say(`cli: mrtq --help ${round(cli.helpMs)} ms (from the sources ${round(cli.helpMsSource)} ms)`);

    const partial: Omit<BenchResult, 'targets'> = {
      date: new Date().toISOString(),
      profile: quick ? 'quick' : 'full',
      repeat: times,
      machine: await describeMachine(main),
      ceiling_multi_1_tx_per_s: round(multi1),
      ceiling_multi_64_tx_per_s: round(multi64),
      ceiling_create_64_per_s: round(create64),
      engine_jobs: jobs,
      engine_warm_up_jobs_per_s: round(warmUp.jobsPerS),
      engine_jobs_per_s: round(pick('jobsPerS')),
      engine_transitions_per_s: round(pick('transitionsPerS')),
      engine_transitions_per_job: round(pick('transitionsPerJob'), 2),
      engine_zk_requests_per_job: round(pick('zkRequestsPerJob')),
      engine_cpu_ms_per_job: round(pick('cpuMsPerJob'), 2),
      ratio_transitions_to_ceiling: round(pick('transitionsPerS') / multi64, 3),
      completion_latency_batches: latency.samples,
      completion_latency_ms_p50: round(latency.p50Ms, 2),
      completion_latency_ms_p99: round(latency.p99Ms, 2),
      expansion_objects: sizes.expansion,
      expansion_jobs_per_s: round(expansion),
      scale_pending_jobs: scale.pendingJobs,
      rss_mb_100k_pending: round(scale.rssMbPeak),
      first_acquire_ms: round(scale.firstAcquireMs),
      engine_startup_ms: round(scale.startupMs),
      baseline_jobs: sizes.baseline,
      baseline_jobs_per_s: round(baseline, 2),
      ratio_engine_to_baseline: round(pick('jobsPerS') / baseline, 2),
      cli_help_ms: round(cli.helpMs),
      cli_help_ms_from_source: round(cli.helpMsSource),
      engine_jobs_per_s_without_fair_shares: round(unfair),
      ratio_jobs_per_s_fair_to_unfair: round(pick('jobsPerS') / unfair, 3),
      fair_big_jobs: fair.bigJobs,
      fair_big_backlog_at_submit: fair.bigBacklogAtSubmit,
      fair_small_jobs: fair.smallJobs,
      fair_small_batch_s: round(fair.smallBatchSeconds, 2),
      fair_big_drain_s: round(fair.bigDrainSeconds, 2),
      ratio_fair_small_to_big_drain: round(fair.ratioSmallToDrain, 3),
    };
    const result: BenchResult = { ...partial, targets: targetsOf(partial) };
    const dir = options.resultsDir ?? packagePath('bench', 'results');
    if (dir !== '') {
      mkdirSync(dir, { recursive: true });
      const name = `${result.date.replace(/[:.]/g, '-')}-${result.profile}.json`;
      writeFileSync(join(dir, name), JSON.stringify(result, null, 2) + '\n');
      say(`results written to ${join(dir, name)}`);
    }
    return result;
  });
}

/** The figures as a table for a terminal. */
export function formatBench(r: BenchResult): string {
  const lines = [
    `benchmark (${r.profile}, median of ${r.repeat}) on ${r.machine.cores} × ${r.machine.cpu}, ${r.machine.os}, Node ${r.machine.node}, ZooKeeper ${r.machine.zookeeper}`,
    '',
    `  ceiling: multi (4 ops) 1 in flight      ${r.ceiling_multi_1_tx_per_s} tx/s`,
    `  ceiling: multi (4 ops) 64 in flight     ${r.ceiling_multi_64_tx_per_s} tx/s`,
    `  ceiling: creates, 64 in flight          ${r.ceiling_create_64_per_s} /s`,
    `  engine: ${r.engine_jobs} jobs, no-op steps         ${r.engine_jobs_per_s} jobs/s, ${r.engine_transitions_per_s} transitions/s`,
    `  engine: warm-up batch (not counted)     ${r.engine_warm_up_jobs_per_s} jobs/s`,
    `  engine: ZooKeeper requests per job      ${r.engine_zk_requests_per_job} (${r.engine_transitions_per_job} transitions/job)`,
    `  engine: CPU per job (this process)      ${r.engine_cpu_ms_per_job} ms`,
    `  ratio transitions/s to ceiling          ${r.ratio_transitions_to_ceiling}`,
    `  batch completion latency (${r.completion_latency_batches} batches) p50 ${r.completion_latency_ms_p50} ms, p99 ${r.completion_latency_ms_p99} ms`,
    `  expansion of ${r.expansion_objects} objects          ${r.expansion_jobs_per_s} jobs/s`,
    `  ${r.scale_pending_jobs} pending jobs: engine RSS ${r.rss_mb_100k_pending} MB, first acquire ${r.first_acquire_ms} ms (start-up ${r.engine_startup_ms} ms)`,
    `  baseline (seed 003 recipe, polling)     ${r.baseline_jobs_per_s} jobs/s; engine is ${r.ratio_engine_to_baseline} ×`,
    `  mrtq --help, new process              ${r.cli_help_ms} ms (from the sources ${r.cli_help_ms_from_source} ms)`,
    `  engine without fair shares              ${r.engine_jobs_per_s_without_fair_shares} jobs/s (with them: ${r.ratio_jobs_per_s_fair_to_unfair} ×)`,
    `  fair shares: ${r.fair_small_jobs} jobs of B behind ${r.fair_big_backlog_at_submit} of A    ${r.fair_small_batch_s} s (A's backlog: ${r.fair_big_drain_s} s; ratio ${r.ratio_fair_small_to_big_drain})`,
    '',
    '  targets:',
    ...Object.entries(r.targets).map(
      ([k, t]) => `    ${t.met ? 'met   ' : 'MISSED'} ${k} ${t.target}: ${t.value}`,
    ),
  ];
  return lines.join('\n');
}
