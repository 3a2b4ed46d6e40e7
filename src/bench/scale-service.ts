import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { packagePath } from '../package-root.js';
import { SERVE_NODE_FLAGS } from '../serve-flags.js';
import { freePort } from '../zk-server/free-port.js';
import { cpuSeconds, rssMb } from './scale.js';
import { median } from './stats.js';

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

interface LedgerLine {
  kind: string;
  to?: string;
  item: string;
  t: number;
}

function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);
}

/**
 * A growing JSON-lines ledger read from where the last read stopped. Reading the whole file on
 * every poll cost the measuring process 60-85 ms a poll by the end of a 3,000-job window (47,000
 * lines): about 15 % of a core taken from the two the service and ZooKeeper share while they are
 * measured. Keeps the job commits only.
 */
class LedgerTail {
  private fd: number | undefined;
  private offset = 0;
  private partial = '';
  private readonly decoder = new StringDecoder('utf8');
  private readonly chunk = Buffer.alloc(1 << 20);
  /** The first commit of any item, and every job commit in file order. */
  first: LedgerLine | undefined;
  readonly jobCommits: LedgerLine[] = [];
  readonly completions: LedgerLine[] = [];

  constructor(private readonly file: string) {}

  /** Takes in the lines appended since the last call. */
  read(): void {
    if (this.fd === undefined) {
      if (!existsSync(this.file)) return;
      this.fd = openSync(this.file, 'r');
    }
    for (;;) {
      const n = readSync(this.fd, this.chunk, 0, this.chunk.length, this.offset);
      if (n === 0) return;
      this.offset += n;
      const lines = (this.partial + this.decoder.write(this.chunk.subarray(0, n))).split('\n');
      this.partial = lines.pop()!;
      for (const text of lines) {
        if (!text.includes('"kind":"commit"')) continue;
        const line = JSON.parse(text) as LedgerLine;
        this.first ??= line;
        if (!line.item.startsWith('jid')) continue;
        this.jobCommits.push(line);
        if (line.to === 'completed') this.completions.push(line);
      }
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

async function timedGet(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return performance.now() - started;
}

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
  return spawn(
    process.execPath,
    [
      ...SERVE_NODE_FLAGS,
      '--import',
      probe,
      BIN,
      'serve',
      '--zk',
      connectString,
      '--steps',
      'simulated',
      '--sweep',
      '0',
      '--ledger',
      join(work, `${tag}-ledger.jsonl`),
      '--http-port',
      String(httpPort),
    ],
    {
      env: {
        ...process.env,
        ZK_CONNECT: '',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        MRTQ_CLEANUP_INTERVAL_MS: '0',
        MRTQ_LOOP_PROBE: join(work, `${tag}-loop.jsonl`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/**
 * Starts a real `mrtq serve` (every state, simulated no-op steps, HTTP on loopback) over the
 * queue as it is, and measures it while it works through `warmupJobs` and then `jobs` more of
 * the waiting jobs: memory, first acquire, throughput and CPU per job over the `jobs` (a service
 * just started runs its first thousand jobs at about half its rate while V8 compiles its hot
 * paths: measured, 250-450 jobs/s and 2.5-2.8 ms CPU a job, against 500-780 and 1.2-1.9 after),
 * the API's overview and one listing page, and the event loop's longest stall. The process is
 * killed afterwards; the jobs it did not reach stay waiting.
 */
export async function measureService(
  connectString: string,
  work: string,
  tag: string,
  { jobs, warmupJobs }: { jobs: number; warmupJobs: number },
): Promise<ServiceFigures> {
  const httpPort = await freePort();
  const ledgerFile = join(work, `${tag}-ledger.jsonl`);
  const loopFile = join(work, `${tag}-loop.jsonl`);
  const child = spawnService(connectString, work, httpPort, tag);
  const rss = watchRss(child.pid!);
  const ledger = new LedgerTail(ledgerFile);
  let output = '';
  let unread = '';
  let startingAt: number | undefined;
  let runningAt: number | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-200_000);
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
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000)));
  try {
    const deadline = Date.now() + 1_800_000;
    const check = () => {
      if (child.exitCode !== null) throw new Error(`service exited early:\n${output.slice(-3000)}`);
      if (Date.now() > deadline)
        throw new Error(`service did not finish ${jobs} jobs:\n${output.slice(-3000)}`);
    };
    // The window opens at the completion after the warm-up (at least the first: the pipeline is
    // full) and closes `jobs` completions later; CPU is read when each end is seen (polled).
    const opening = Math.max(1, warmupJobs);
    let cpuAtOpen: number | undefined;
    for (;;) {
      check();
      ledger.read();
      if (cpuAtOpen === undefined && ledger.completions.length >= opening) cpuAtOpen = cpuSeconds(child.pid!);
      if (ledger.completions.length > opening + jobs - 1) break;
      await pause(100);
    }
    const cpuAtClose = cpuSeconds(child.pid!);
    const first = ledger.completions[opening - 1]!;
    const last = ledger.completions[opening - 1 + jobs]!;
    const seconds = (last.t - first.t) / 1000;
    const transitions = ledger.jobCommits.filter((l) => l.t > first.t && l.t <= last.t).length;
    const firstCommit = ledger.first!;

    const base = `http://127.0.0.1:${httpPort}`;
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
      firstAcquireMs: firstCommit.t - (startingAt ?? Number.NaN),
      jobsPerS: jobs / seconds,
      transitionsPerS: transitions / seconds,
      // CPU is read when the window's ends are seen (a poll of 100 ms): a close estimate.
      cpuMsPerJob: ((cpuAtClose - (cpuAtOpen ?? Number.NaN)) * 1000) / jobs,
      overviewMs: median(overview),
      listingPageMs: median(page),
      loopMaxMs: Math.max(0, ...loops.filter((l) => l.t > running + 500).map((l) => l.maxMs)),
      loopMaxStartupMs: Math.max(0, ...loops.filter((l) => l.t <= running + 500).map((l) => l.maxMs)),
      // A sample covers the half second before its time.
      loopMaxByPhase: {
        warmup: Math.max(
          0,
          ...loops.filter((l) => l.t > running + 500 && l.t <= first.t).map((l) => l.maxMs),
        ),
        window: Math.max(0, ...loops.filter((l) => l.t > first.t && l.t <= last.t + 500).map((l) => l.maxMs)),
        api: Math.max(0, ...loops.filter((l) => l.t > last.t + 500).map((l) => l.maxMs)),
      },
    };
  } finally {
    rss.stop();
    ledger.close();
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
  const child = spawn(process.execPath, [BIN, 'doctor', '--zk', connectString, '--json'], {
    env: { ...process.env, ZK_CONNECT: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
