import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { nonNegative } from '../options.js';

interface BenchFlags {
  quick?: boolean;
  json?: boolean;
  jobs?: number;
  repeat?: number;
  results?: string;
  scale?: boolean;
  sizes?: number[];
}

/** `--sizes 10000,100000`: the queue sizes of the scale profile. */
function sizeList(value: string): number[] {
  const sizes = value.split(',').map((part) => Number(part.trim()));
  if (sizes.length === 0 || sizes.some((size) => !Number.isInteger(size) || size < 1))
    throw new InvalidArgumentError('--sizes takes whole numbers of jobs, comma-separated (10000,100000)');
  return sizes;
}

/** `mrtq bench`: the performance figures of issue #10 against a ZooKeeper it starts itself. */
export function registerBench(program: Command, ctx: CliContext): void {
  program
    .command('bench')
    .description(
      'measure the ZooKeeper ceiling, the engine, latency, expansion, scale and the documented-recipe baseline',
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
    .action(async (flags: BenchFlags) => {
      if (flags.scale) {
        const { formatScaleProfile, runScaleProfile } = await import('../../bench/scale-profile.js');
        const quick = flags.quick ?? false;
        const result = await runScaleProfile(
          { ...ctx.config, zkConnect: ctx.zkFlag() ?? ctx.config.zkConnect },
          {
            sizes: flags.sizes ?? (quick ? [1_000, 5_000] : [10_000, 100_000, 1_000_000]),
            throughputJobs: flags.jobs ?? (quick ? 300 : 4_000),
            warmupJobs: quick ? 100 : 2_000,
            quick,
            resultsDir: flags.results,
            progress: (line) => ctx.stderr.write(`${line}\n`),
          },
        );
        ctx.stdout.write(flags.json ? `${JSON.stringify(result)}\n` : `${formatScaleProfile(result)}\n`);
        return;
      }
      const { formatBench, runBench } = await import('../../bench/index.js');
      const result = await runBench(
        { ...ctx.config, zkConnect: ctx.zkFlag() ?? ctx.config.zkConnect },
        {
          quick: flags.quick ?? false,
          jobs: flags.jobs,
          repeat: flags.repeat,
          resultsDir: flags.results,
          progress: (line) => ctx.stderr.write(`${line}\n`),
        },
      );
      ctx.stdout.write(flags.json ? `${JSON.stringify(result)}\n` : `${formatBench(result)}\n`);
    });
}
