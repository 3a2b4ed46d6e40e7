import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { packagePath } from '../package-root.js';
import { median } from './stats.js';

/** How long `mrtq --help` takes from a new process to its exit, ms (medians). */
export interface CliStart {
  /** As the command runs here: from the build when it is current, else from the sources. */
  helpMs: number;
  /** From the TypeScript sources through tsx (MRTQ_FROM_SOURCE=1), as before the build existed. */
  helpMsSource: number;
}

function timeHelp(env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, [packagePath('bin', 'mrtq.js'), '--help'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`mrtq --help exited ${run.status}: ${run.stderr.toString()}`);
  return ms;
}

/**
 * The command line's start-up: cold `node bin/mrtq.js --help`, `runs` times each way (issue 21
 * wants it under 300 ms; shown, never asserted).
 */
export function cliStartTime(runs: number): CliStart {
  const each = (env: NodeJS.ProcessEnv) => median(Array.from({ length: runs }, () => timeHelp(env)));
  return {
    helpMs: each(process.env),
    helpMsSource: each({ ...process.env, MRTQ_FROM_SOURCE: '1' }),
  };
}
