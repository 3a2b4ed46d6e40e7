import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import type { LedgerEntry } from '../../src/engine/ledger.js';
import { serveCommand } from '../../src/serve-flags.js';

export interface EngineProcess {
  proc: ChildProcess;
  pid: number;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  signal(signal: NodeJS.Signals): void;
}

/**
 * Starts `mrtq serve` (simulated steps unless `--steps` is given) as a real child process; resolves
 * once its engine has started. `commandPrefix` runs it through a command that execs it (`ip netns
 * exec NS`: in a network namespace), so that the child's pid is still the engine's.
 */
export async function startEngineProcess(
  connectString: string,
  args: string[],
  env: Record<string, string> = {},
  commandPrefix: string[] = [],
): Promise<EngineProcess> {
  const engine = spawnEngineProcess(connectString, args, env, commandPrefix);
  const started = Date.now();
  while (!engine.output().includes('"msg":"service running')) {
    if (engine.proc.exitCode !== null || engine.proc.signalCode !== null) {
      await engine.exited; // its last lines say why
      throw new Error(`engine exited early:\n${engine.output()}`);
    }
    if (Date.now() - started > 30_000) {
      // Nobody will stop an engine the caller never got: it would take a later test's work.
      engine.proc.kill('SIGKILL');
      throw new Error(`engine did not start within 30 s:\n${engine.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return engine;
}

/** Starts `mrtq serve` like {@link startEngineProcess}, without waiting for its start-up to finish. */
export function spawnEngineProcess(
  connectString: string,
  args: string[],
  env: Record<string, string> = {},
  commandPrefix: string[] = [],
): EngineProcess {
  const steps = args.includes('--steps') ? [] : ['--steps', 'simulated'];
  // Many engines share this machine: each takes a free HTTP port.
  if (!args.includes('--http-port') && !args.includes('--no-http')) steps.push('--http-port', '0');
  const serve = serveCommand(['--zk', connectString, ...steps, ...args]);
  const [command, ...argv] = [...commandPrefix, serve.command, ...serve.argv];
  const proc = spawn(command!, argv, {
    env: { ...process.env, ZK_CONNECT: '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // 'close', not 'exit': by then stdout and stderr are drained, so `out` holds the last lines.
  const exited = new Promise<number | string>((resolve) =>
    proc.once('close', (code, sig) => resolve(code ?? sig ?? -1)),
  );
  return {
    proc,
    pid: proc.pid!,
    output: () => out,
    exited,
    signal: (signal) => {
      try {
        proc.kill(signal);
      } catch {
        // already gone
      }
    },
  };
}

/** The ledger lines written so far by every process sharing `file` (complete lines only). */
export function readLedger(file: string): (LedgerEntry & { pid: number; t: number })[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  // The last piece is empty, or a line an engine is writing right now: read it next time.
  lines.pop();
  return lines.map((line) => JSON.parse(line) as LedgerEntry & { pid: number; t: number });
}

/** Commits per `item:state`; every value should be 1. */
export function commitCounts(entries: LedgerEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) {
    if (e.kind !== 'commit') continue;
    const key = `${e.item}:${e.state}:${e.event}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
