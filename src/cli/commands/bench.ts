import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { nonNegative } from '../options.js';
import { PAYLOAD_NAMES, type PayloadName } from '../../bench/payload/sizes.js';
import { runInterruptible } from '../../bench/interrupt.js';

interface BenchFlags {
  quick?: boolean;
  json?: boolean;
  jobs?: number;
  repeat?: number;
  results?: string;
  scale?: boolean;
  sizes?: number[];
  payload?: boolean;
  payloadDigest?: 'md5' | 'sha256';
  payloads?: PayloadName[];
  storeSync?: boolean;
}

/** `--payloads big-file,zip`: which payloads the payload profile runs. */
function payloadList(value: string): PayloadName[] {
  const names = value.split(',').map((part) => part.trim());
  const unknown = names.filter((name) => !(PAYLOAD_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new InvalidArgumentError(`--payloads takes some of ${PAYLOAD_NAMES.join(', ')}, comma-separated`);
  return names as PayloadName[];
}

/** `--sizes 10000,100000`: the queue sizes of the scale profile. */
function sizeList(value: string): number[] {
  const sizes = value.split(',').map((part) => Number(part.trim()));
  if (sizes.length === 0 || sizes.some((size) => !Number.isInteger(size) || size < 1))
    throw new InvalidArgumentError('--sizes takes whole numbers of jobs, comma-separated (10000,100000)');
  return sizes;
}

/** `--payload-digest md5|sha256`: the digests the payload profile's manifests carry. */
function payloadDigest(value: string): 'md5' | 'sha256' {
  if (value !== 'md5' && value !== 'sha256')
    throw new InvalidArgumentError('--payload-digest takes md5 or sha256');
  return value;
}

/** `mrtq bench`: the performance figures of issue #10 against a ZooKeeper it starts itself. */
export function registerBench(program: Command, ctx: CliContext): void {
  program
    .command('bench')
    .description(
      'measure the ZooKeeper ceiling, the engine, latency, expansion, scale, payloads (real bytes through the ingest steps) and the documented-recipe baseline',
    )
    .option('--quick', 'small sizes, one run each (CI)')
    .option('--json', 'print one JSON object with every figure')
    .option(
      '--jobs <n>',
      'jobs in the engine-throughput batch (default 5000; quick 300); with --scale, jobs measured at each size after a warm-up (default 4000 after 2000; quick 300 after 100)',
      nonNegative('--jobs'),
    )
    .option(
      '--repeat <n>',
      'runs of each measurement; the median is reported (default 3; quick 1)',
      nonNegative('--repeat'),
    )
    .option('--results <dir>', 'where to write the results file (default bench/results; "" for none)')
    .option(
      '--scale',
      'the scale profile instead: 10k, 100k and 1M jobs waiting (quick: 1k, 5k), measured at each size',
    )
    .option('--sizes <list>', "the scale profile's queue sizes, comma-separated", sizeList)
    .option(
      '--payload',
      "the payload profile instead (issue 36): generated files served on loopback, ingested by a real mrtq serve with the ingest steps, against the same run's limit for the same bytes (fetch + digest + write): one 1 GiB file, 2,000 × 64 KiB and 20,000 × 4 KiB files in one object, 5,000 one-file objects, a 2 GiB zip (quick: 32 MiB, 200, 1,000, 200, 48 MiB)",
    )
    .option(
      '--payload-digest <algorithm>',
      "the payload profile's manifest digests: sha256 (default), or md5 as Merritt's Ruby client writes them",
      payloadDigest,
    )
    .option(
      '--payloads <list>',
      `the payload profile's payloads only (${PAYLOAD_NAMES.join(', ')})`,
      payloadList,
    )
    .option(
      '--no-store-sync',
      "the payload profile's service with MRTQ_STORE_SYNC=false, held to the limit without fsync",
    )
    // Interrupted (Ctrl-C, SIGTERM), the bench stops the servers and services it started and
    // removes its temporary folder before it exits (bench/interrupt.ts).
    .action((flags: BenchFlags) => runInterruptible(() => runBenchCommand(ctx, flags)));
}

async function runBenchCommand(ctx: CliContext, flags: BenchFlags): Promise<void> {
  const config = { ...ctx.config, zkConnect: ctx.zkFlag() ?? ctx.config.zkConnect };
  const quick = flags.quick ?? false;
  const common = {
    quick,
    resultsDir: flags.results,
    progress: (line: string) => ctx.stderr.write(`${line}\n`),
  };
  const print = <T>(result: T, format: (r: T) => string) =>
    ctx.stdout.write(flags.json ? `${JSON.stringify(result)}\n` : `${format(result)}\n`);
  if (flags.payload) {
    const { formatPayloadProfile, runPayloadProfile } = await import('../../bench/payload/index.js');
    print(
      await runPayloadProfile(config, {
        ...common,
        digest: flags.payloadDigest,
        payloads: flags.payloads,
        storeSync: flags.storeSync,
      }),
      formatPayloadProfile,
    );
    return;
  }
  if (flags.scale) {
    const { formatScaleProfile, runScaleProfile } = await import('../../bench/scale-profile.js');
    const result = await runScaleProfile(config, {
      ...common,
      sizes: flags.sizes ?? (quick ? [1_000, 5_000] : [10_000, 100_000, 1_000_000]),
      throughputJobs: flags.jobs ?? (quick ? 300 : 4_000),
      warmupJobs: quick ? 100 : 2_000,
    });
    print(result, formatScaleProfile);
    return;
  }
  const { formatBench, runBench } = await import('../../bench/index.js');
  print(await runBench(config, { ...common, jobs: flags.jobs, repeat: flags.repeat }), formatBench);
}
