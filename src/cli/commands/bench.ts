import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { nonNegative } from '../options.js';

interface BenchFlags {
  quick?: boolean;
  json?: boolean;
  jobs?: number;
  repeat?: number;
  results?: string;
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
      'jobs in the engine-throughput batch (default 5000; quick 300)',
      nonNegative('--jobs'),
    )
    .option(
      '--repeat <n>',
      'runs of each measurement; the median is reported (default 3; quick 1)',
      nonNegative('--repeat'),
    )
    .option('--results <dir>', 'where to write the results file (default bench/results; "" for none)')
    .action(async (flags: BenchFlags) => {
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
