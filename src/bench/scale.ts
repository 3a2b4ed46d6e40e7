import { merrittJobLifecycle } from '../../machines/index.js';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { serveCommand } from '../serve-flags.js';
import { existsSync, readFileSync } from 'node:fs';
import { createBatch } from '../queue/batches/create.js';
import type { QueueContext } from '../queue/tree/context.js';
import { createJobs, type JobSpec } from '../queue/jobs/create.js';
import { persist } from './retry.js';
import { killedOnInterrupt } from './interrupt.js';

/** Resident set size of a process in MB (Linux /proc), or NaN when it cannot be read. */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times: 100 on every architecture it runs on. */
const CLOCK_TICKS = 100;

/**
 * CPU seconds (user + system, every thread) a process has used so far, from /proc; NaN once it
 * has gone. Read before and after a phase to see where a run's time went.
 */
export function cpuSeconds(pid: number): number {
  try {
    // The fields after the command name (which may hold spaces and parentheses) start at the
    // state, field 3: after the last ') '.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/**
 * Creates `count` pending jobs in one processing batch, in chunked multis (not measured). A
 * server busy writing a snapshot of a big tree may leave a multi's outcome unknown: creating
 * again is safe (positions that have a job are skipped, the batch has a uuid), so each part is
 * tried again.
 */
export async function seedPendingJobs(queue: QueueContext, count: number): Promise<string> {
  const submission = {
    profile_name: 'bench',
    submitter: 'bench',
    payload_url: 'sim:0',
    type: 'manifest',
    batchID: randomUUID(),
  };
  const { bid } = await persist('submit', () => createBatch(queue, submission));
  for (let start = 0; start < count; start += 10_000) {
    const specs: JobSpec[] = [];
    for (let position = start; position < Math.min(count, start + 10_000); position++)
      specs.push({
        position,
        configuration: {
          profile_name: 'bench',
          submitter: 'bench',
          payload_url: 'sim',
          payload_type: 'file',
        },
      });
    await persist('seed jobs', () => createJobs(queue, bid, specs));
  }
  return bid;
}

function startTime(output: string): number | undefined {
  const line = output.split('\n').find((l) => l.includes('"msg":"service starting"'));
  return line ? (JSON.parse(line) as { time: number }).time : undefined;
}

export interface ScaleResult {
  pendingJobs: number;
  rssMbPeak: number;
  firstAcquireMs: number;
  startupMs: number;
}

/**
 * Starts a real `mrtq serve` process (pending consumer only) over a queue holding `pendingJobs`
 * pending jobs: its peak resident memory until `settleMs` after its first acquire, the time
 * from the service starting (after Node and the modules are loaded) to that first acquire, and
 * its whole start-up time (process spawn to "service running").
 */
export async function engineAtScale(
  connectString: string,
  ledgerFile: string,
  pendingJobs: number,
  settleMs = 5000,
): Promise<ScaleResult> {
  const spawned = performance.now();
  const serve = serveCommand([
    '--zk',
    connectString,
    '--steps',
    'simulated',
    '--states',
    merrittJobLifecycle.initial,
    '--no-http',
    '--sweep',
    '0',
    '--ledger',
    ledgerFile,
  ]);
  const child = killedOnInterrupt(
    spawn(serve.command, serve.argv, {
      env: { ...process.env, ZK_CONNECT: '', LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  let runningAt: number | undefined;
  /** When the service began starting (its first log line's time): connecting, listing, acquiring follow. */
  let startingWall: number | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    startingWall ??= startTime(output);
    if (runningAt === undefined && output.includes('"msg":"service running')) runningAt = performance.now();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let peak = 0;
  let firstCommitWall: number | undefined;
  let firstSeenAt: number | undefined;
  try {
    const until = performance.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`engine exited early:\n${output}`);
      const rss = rssMb(child.pid!);
      if (Number.isFinite(rss)) peak = Math.max(peak, rss);
      if (firstCommitWall === undefined && existsSync(ledgerFile)) {
        const first = readFileSync(ledgerFile, 'utf8')
          .split('\n')
          .find((line) => line.includes('"kind":"commit"'));
        if (first) {
          firstCommitWall = (JSON.parse(first) as { t: number }).t;
          firstSeenAt = performance.now();
        }
      }
      if (firstSeenAt !== undefined && performance.now() - firstSeenAt > settleMs) break;
      if (performance.now() > until) throw new Error(`no acquire within 120 s:\n${output.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    child.kill('SIGKILL');
  }
  return {
    pendingJobs,
    rssMbPeak: peak,
    firstAcquireMs: firstCommitWall! - startingWall!,
    startupMs: runningAt! - spawned,
  };
}
