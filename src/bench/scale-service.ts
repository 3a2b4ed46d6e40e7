import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { merrittJobLifecycle } from '../../machines/index.js';
import { packagePath } from '../package-root.js';
import { jobStateFolder } from '../queue/tree/paths.js';
import { serveCommand } from '../serve-flags.js';
import { outcomeStates } from '../telemetry/metrics-history.js';
import type { ZkClient } from '../zk/index.js';
import { freePort } from '../zk-server/free-port.js';
import { persist } from './retry.js';
import { cpuSeconds, rssMb } from './scale.js';
import { median } from './stats.js';
import { killedOnInterrupt } from './interrupt.js';

const BIN = packagePath('bin', 'mrtq.js');

/**
 * Loaded into the measured process with `--import`: the longest event-loop delay of each half
 * second (perf_hooks' monitorEventLoopDelay, 10 ms resolution), appended to the file named by
 * MRTQ_LOOP_PROBE. Written as a file at run time so the probe is not part of the service.
 */
const LOOP_PROBE = `import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appendFileSync } from 'node:fs';
const file = process.env.MRTQ_LOOP_PROBE;
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
setInterval(() => {
  appendFileSync(file, JSON.stringify({ t: Date.now(), maxMs: histogram.max / 1e6 }) + '\\n');
  histogram.reset();
}, 500).unref();
`;

/** What one `mrtq serve` process over a large queue showed. */
export interface ServiceFigures {
  /** Peak resident memory from spawn to the end of the run, MB. */
  rssMbPeak: number;
  /** From the service starting (its first log line) to its first commit. */
  firstAcquireMs: number;
  /** Jobs completed per second over the window, no-op steps through every state. */
  jobsPerS: number;
  /** Job commits (transitions) per second over the same window. */
  transitionsPerS: number;
  /** Engine CPU (user + system) per completed job in the window, ms. */
  cpuMsPerJob: number;
  /** Median of GET /overview and of one GET /jobs page, ms. */
  overviewMs: number;
  listingPageMs: number;
  /** The longest event-loop delay seen once the service was running (and over its start-up). */
  loopMaxMs: number;
  loopMaxStartupMs: number;
  /** The longest stall in each part of the run after start-up: which part the one above was in. */
  loopMaxByPhase: { warmup: number; window: number; api: number };
}

function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);
}

/** Job commits the service has counted (`mrtq_transitions_total{kind="job"}` on its GET /metrics). */
async function jobTransitions(base: string): Promise<number> {
  const response = await fetch(`${base}/metrics`);
  if (!response.ok) throw new Error(`GET ${base}/metrics: ${response.status}`);
  let sum = 0;
  for (const line of (await response.text()).split('\n'))
    if (line.startsWith('mrtq_transitions_total{') && line.includes('kind="job"'))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** Children of the job state folders of `states`, summed (a stat each). */
export async function jobsIn(zk: ZkClient, states: readonly string[]): Promise<number> {
  let sum = 0;
  for (const state of states)
    sum += (await persist(`${state} count`, () => zk.childCount(jobStateFolder(state)))) ?? 0;
  return sum;
}

async function timedGet(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return performance.now() - started;
}

/**
 * The service's output kept for an error message: its last lines. The service logs a line a job
 * (completions at info, about 700 a second here), and every chunk copies what is kept, in the
 * process that measures on the same two cores.
 */
const OUTPUT_KEPT = 8_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples a process's resident memory every 50 ms until stopped; returns the peak. */
export function watchRss(pid: number): { stop(): number } {
  let peak = 0;
  const sample = () => {
    const rss = rssMb(pid);
    if (Number.isFinite(rss)) peak = Math.max(peak, rss);
  };
  const timer = setInterval(sample, 50);
  sample();
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

function spawnService(connectString: string, work: string, httpPort: number, tag: string): ChildProcess {
  const probe = join(work, 'loop-probe.mjs');
  writeFileSync(probe, LOOP_PROBE);
  const serve = serveCommand(
    ['--zk', connectString, '--steps', 'simulated', '--sweep', '0', '--http-port', String(httpPort)],
    ['--import', probe],
  );
  return killedOnInterrupt(
    spawn(serve.command, serve.argv, {
      env: {
        ...process.env,
        ZK_CONNECT: '',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        MRTQ_CLEANUP_INTERVAL_MS: '0',
        MRTQ_LOOP_PROBE: join(work, `${tag}-loop.jsonl`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/**
 * Starts a real `mrtq serve` (every state, simulated no-op steps, HTTP on loopback) over the
 * queue as it is, and measures it while it works through `warmupJobs` and then `jobs` more of
 * the waiting jobs: memory, first acquire, throughput and CPU per job over the `jobs` (a service
 * just started runs its first thousand jobs at about half its rate while V8 compiles its hot
 * paths: measured, 250-450 jobs/s and 2.5-2.8 ms CPU a job, against 500-780 and 1.2-1.9 after),
 * the API's overview and one listing page, and the event loop's longest stall. The service runs
 * as deployed, without `--ledger` (its synchronous write per step was 6 % of its CPU): it is
 * watched from outside, through ZooKeeper (a stat of a folder) and its own GET /metrics. The
 * process is killed afterwards; the jobs it did not reach stay waiting.
 */
export async function measureService(
  zk: ZkClient,
  connectString: string,
  work: string,
  tag: string,
  { jobs, warmupJobs }: { jobs: number; warmupJobs: number },
): Promise<ServiceFigures> {
  const httpPort = await freePort();
  const base = `http://127.0.0.1:${httpPort}`;
  const loopFile = join(work, `${tag}-loop.jsonl`);
  const lifecycle = merrittJobLifecycle;
  const { completed: completedStates } = outcomeStates(lifecycle);
  // Seen from outside, as an operator would: the first commit takes a job out of the initial
  // state's folder (its cversion moves), completions are children of the completed folders.
  const intake = () => persist('intake folder', () => zk.exists(jobStateFolder(lifecycle.initial)));
  const intakeBefore = (await intake())?.cversion;
  const completedBefore = await jobsIn(zk, completedStates);
  const child = spawnService(connectString, work, httpPort, tag);
  const rss = watchRss(child.pid!);
  let output = '';
  let unread = '';
  let startingAt: number | undefined;
  let runningAt: number | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-OUTPUT_KEPT);
    if (runningAt !== undefined) return;
    // Whole lines only, each looked at once, until both start-up lines are seen.
    const lines = (unread + text).split('\n');
    unread = lines.pop()!;
    for (const line of lines) {
      if (startingAt === undefined && line.includes('"msg":"service starting"'))
        startingAt = (JSON.parse(line) as { time: number }).time;
      if (runningAt === undefined && line.includes('"msg":"service running'))
        runningAt = (JSON.parse(line) as { time: number }).time;
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT)));
  try {
    const deadline = Date.now() + 1_800_000;
    const check = () => {
      if (child.exitCode !== null) throw new Error(`service exited early:\n${output.slice(-3000)}`);
      if (Date.now() > deadline)
        throw new Error(`service did not finish ${jobs} jobs:\n${output.slice(-3000)}`);
    };
    let firstCommitAt: number | undefined;
    while (firstCommitAt === undefined) {
      check();
      if ((await intake())?.cversion !== intakeBefore) firstCommitAt = Date.now();
      else await pause(10);
    }
    const completions = async () => (await jobsIn(zk, completedStates)) - completedBefore;
    /** Completions, CPU and job commits so far, read together (a few ms). */
    const mark = async () => ({
      at: Date.now(),
      cpu: cpuSeconds(child.pid!),
      done: await completions(),
      transitions: await jobTransitions(base),
    });
    // The window opens once `warmupJobs` are done and closes `jobs` completions later (polled).
    while ((await completions()) < Math.max(1, warmupJobs)) {
      check();
      await pause(100);
    }
    const open = await mark();
    while ((await completions()) - open.done < jobs) {
      check();
      await pause(100);
    }
    const close = await mark();
    const seconds = (close.at - open.at) / 1000;
    const done = close.done - open.done;

    const overview: number[] = [];
    const page: number[] = [];
    for (let i = 0; i < 5; i++) {
      overview.push(await timedGet(`${base}/overview`));
      page.push(await timedGet(`${base}/jobs?limit=50`));
    }
    const loops = jsonLines<{ t: number; maxMs: number }>(loopFile);
    const running = runningAt ?? Number.POSITIVE_INFINITY;
    return {
      rssMbPeak: rss.stop(),
      // Seen within 10 ms (the poll) plus a stat's round trip.
      firstAcquireMs: firstCommitAt - (startingAt ?? Number.NaN),
      jobsPerS: done / seconds,
      transitionsPerS: (close.transitions - open.transitions) / seconds,
      cpuMsPerJob: ((close.cpu - open.cpu) * 1000) / done,
      overviewMs: median(overview),
      listingPageMs: median(page),
      loopMaxMs: Math.max(0, ...loops.filter((l) => l.t > running + 500).map((l) => l.maxMs)),
      loopMaxStartupMs: Math.max(0, ...loops.filter((l) => l.t <= running + 500).map((l) => l.maxMs)),
      // A sample covers the half second before its time.
      loopMaxByPhase: {
        warmup: Math.max(
          0,
          ...loops.filter((l) => l.t > running + 500 && l.t <= open.at).map((l) => l.maxMs),
        ),
        window: Math.max(
          0,
          ...loops.filter((l) => l.t > open.at && l.t <= close.at + 500).map((l) => l.maxMs),
        ),
        api: Math.max(0, ...loops.filter((l) => l.t > close.at + 500).map((l) => l.maxMs)),
      },
    };
  } finally {
    rss.stop();
    child.kill('SIGKILL');
  }
}

/**
 * Runs `mrtq doctor` over the queue: its wall time and peak memory, and `failed` with its last
 * words when it did not finish (out of memory on a huge queue is a result, not a reason to stop).
 */
export async function measureDoctor(
  connectString: string,
): Promise<{ ms: number; rssMbPeak: number; failed?: string }> {
  const started = performance.now();
  const child = killedOnInterrupt(
    spawn(process.execPath, [BIN, 'doctor', '--zk', connectString, '--json'], {
      env: { ...process.env, ZK_CONNECT: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  const rss = watchRss(child.pid!);
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const peak = rss.stop();
  // Exit 1 is a doctor that found problems (a bench queue has batches still processing): it ran.
  const ms = performance.now() - started;
  if (code !== 0 && code !== 1) return { ms, rssMbPeak: peak, failed: `exit ${code}: ${errors.slice(-500)}` };
  return { ms, rssMbPeak: peak };
}
