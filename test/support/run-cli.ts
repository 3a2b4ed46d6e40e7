import { execFile } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mrtq.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mrtq` as a real child process (as `npx mrtq` would) and collects its output and exit code. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      // A large queue's `tree --json` prints hundreds of megabytes (execFile stops at 1 MiB by default).
      { env: { ...process.env, ZK_CONNECT: '', ...env }, timeout: timeoutMs, maxBuffer: 1024 ** 3 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
