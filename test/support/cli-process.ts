import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { serveCommand } from '../../src/serve-flags.js';
import type { CliResult } from './run-cli.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mrtq.js');

/**
 * The environment of a command run as a new user would: no ZK_CONNECT, no MRTQ_DATA_DIR or
 * MRTQ_HOME or MRTQ_CONFIG from the test's own environment, and a HOME of the test's choosing (so
 * a real ~/.config/mrtq is never read).
 */
export function userEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['ZK_CONNECT', 'MRTQ_DATA_DIR', 'MRTQ_HOME', 'MRTQ_CONFIG', 'XDG_CONFIG_HOME'])
    delete base[name];
  return { ...base, MRTQ_CONTAINERS: 'off', ...env };
}

/** Runs `mrtq` as a real process in `cwd` (a directory outside the repository). */
export function runCliIn(cwd: string, args: string[], env: Record<string, string>, timeoutMs = 60_000) {
  return new Promise<CliResult>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: userEnv(env), timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A `mrtq serve` started in `cwd`; `exited` resolves with its exit code. */
export interface ServeProcess {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
}

/** Starts `mrtq serve` in `cwd` and resolves once it prints its dashboard line. */
export async function startServeIn(cwd: string, args: string[], env: Record<string, string>) {
  const command = serveCommand(args);
  const proc = spawn(command.command, command.argv, {
    cwd,
    env: userEnv({ LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    proc.once('close', (code, sig) => resolve(code ?? sig ?? -1)),
  );
  const serve: ServeProcess = { proc, output: () => out, exited };
  const started = Date.now();
  while (!out.includes('"msg":"service running')) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await exited;
      throw new Error(`mrtq serve exited early:\n${out}`);
    }
    if (Date.now() - started > 30_000) {
      proc.kill('SIGKILL');
      throw new Error(`mrtq serve did not start within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return serve;
}
