/**
 * Node flags the engine service runs with: `npm start`, the Dockerfile (as NODE_OPTIONS), and the
 * tests and benchmarks that start `mrtq serve` as a process. A test checks that they agree.
 *
 * Why a heap budget: V8 sizes its heap against the machine's memory (a 4 GB limit on a 24 GB
 * machine) and, under the allocation rate of an engine moving hundreds of transitions a second,
 * lets garbage build up to several times the live data before a full collection. Running one
 * batch of 30,000 jobs, an engine's live heap was about 45 MB while its resident memory reached
 * 300-350 MB. With an explicit old-generation limit V8 collects earlier: 384 MB kept two engines
 * under 180 MB at the throughput of no limit; 256 MB kept them as low but was slower (see
 * docs/performance.md, "Memory"). It is more than 4x the live data with 100,000 jobs waiting.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-old-space-size=384'];
