import { packagePath } from './package-root.js';

/**
 * Node flags the engine service runs with: `npm start`, the Dockerfile (as NODE_OPTIONS), and the
 * tests and benchmarks that start `mrtq serve` as a process. A test checks that they agree.
 *
 * Why a heap budget: V8 sizes its heap against the machine's memory (a 4 GB limit on a 24 GB
 * machine) and, under the allocation rate of an engine moving hundreds of transitions a second,
 * lets garbage build up to several times the live data before a full collection. Running one
 * batch of 30,000 jobs, an engine's live heap was about 45 MB while its resident memory reached
 * 300-350 MB. With an explicit old-generation limit V8 grows the heap by a smaller factor and
 * collects earlier. 1024 MB: one engine running a 50,000-job batch peaked at 201-214 MB, and one
 * with 100,000 jobs waiting at 188 MB, with 5-6 % more throughput than 384 MB (three hand-run A/B pairs of chaos scenario 7,
 * 2026-11-24, 384 MB peaking at 188-196 MB); 256 MB was slower still (see docs/performance.md,
 * "Memory"). The bound the tests and the benchmark hold it to is 300 MB resident.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-old-space-size=1024'];

/**
 * The command that starts `mrtq serve` as a process, as the tests and benchmarks start it: this
 * Node, {@link SERVE_NODE_FLAGS} and `nodeArgs` (an `--import` of a probe), then `bin/mrtq.js
 * serve` with `args`.
 */
export function serveCommand(
  args: readonly string[],
  nodeArgs: readonly string[] = [],
): { command: string; argv: string[] } {
  return {
    command: process.execPath,
    argv: [...SERVE_NODE_FLAGS, ...nodeArgs, packagePath('bin', 'mrtq.js'), 'serve', ...args],
  };
}
