import type { Command } from 'commander';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { BATCH_WORK } from '../../engine/engine.js';
import { createLogger } from '../../logger.js';
import type { BatchWork } from '../../queue/batch-acquire.js';
import { startService } from '../../service.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { nonNegative } from '../options.js';

function listOf<T extends string>(what: string, allowed: readonly T[]) {
  return (value: string): T[] => {
    if (value === 'none') return [];
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
    if (unknown.length > 0) {
      throw new CliError(
        `unknown ${what}: ${unknown.join(', ')} (allowed: ${allowed.join(', ')}, or none)`,
        ExitCode.usage,
      );
    }
    return items as T[];
  };
}

interface ServeFlags {
  states?: string[];
  batches?: BatchWork[];
  steps: string;
  stepDelay: number;
  ledger?: string;
  sweep: number;
  limit?: number;
  grace: number;
  inspect?: boolean;
  inspectPort: number;
  http: boolean;
  httpPort?: number;
}

/** `mrtq serve`: the engine as a long-running service, stopped gracefully by SIGTERM or SIGINT. */
export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the engine (starts an embedded ZooKeeper when none is configured)')
    .option(
      '--states <list>',
      `job states to consume (${merrittJobLifecycle.servableStates.join(',')}); default all`,
      listOf('job state', merrittJobLifecycle.servableStates),
    )
    .option(
      '--batches <list>',
      `batch work to do (${BATCH_WORK.join(',')}, or none); default all, or none with --states`,
      listOf('batch work', BATCH_WORK),
    )
    .option(
      '--steps <kind>',
      'step implementations: ingest, or simulated (sim:<n> payloads; for tests and benchmarks)',
      'ingest',
    )
    .option('--step-delay <ms>', 'time each simulated step takes', nonNegative('--step-delay'), 0)
    .option('--ledger <file>', 'append every step start and commit to this JSON-lines file')
    .option(
      '--sweep <ms>',
      'safety-net re-read of every folder; 0 turns it off',
      nonNegative('--sweep'),
      60_000,
    )
    .option('--limit <n>', 'items worked on at once per state (default 4, pending 8)', nonNegative('--limit'))
    .option(
      '--grace <ms>',
      'on SIGTERM, how long in-flight steps may take to finish',
      nonNegative('--grace'),
      10_000,
    )
    .option(
      '--http-port <port>',
      'HTTP API port (0 = a free one; default MRTQ_HTTP_PORT or 8470)',
      nonNegative('--http-port'),
    )
    .option('--no-http', 'serve no HTTP API')
    .option('--inspect', 'start the Stately inspector relay and attach it to every machine actor')
    .option('--inspect-port <port>', 'port of the inspector relay', nonNegative('--inspect-port'), 8080)
    .action(async (flags: ServeFlags) => {
      if (flags.steps !== 'ingest' && flags.steps !== 'simulated') {
        throw new CliError(`unknown --steps "${flags.steps}" (available: ingest, simulated)`, ExitCode.usage);
      }
      const log = createLogger({ level: ctx.config.logLevel, pretty: ctx.config.logPretty });
      // Listen for the stop signal before starting, so a SIGTERM during start-up also ends cleanly.
      const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      const service = await startService(
        ctx.config,
        {
          zkConnect: ctx.zkFlag(),
          jobStates: flags.states,
          batchWork: flags.batches ?? (flags.states ? [] : undefined),
          steps: flags.steps,
          stepDelayMs: flags.stepDelay,
          ledgerFile: flags.ledger,
          sweepIntervalMs: flags.sweep,
          limit: flags.limit,
          inspectPort: flags.inspect ? flags.inspectPort : undefined,
          httpPort: flags.http ? flags.httpPort : false,
        },
        log,
      );
      log.info(
        { connectString: service.connectString, http: service.httpUrl, pid: process.pid },
        'service running; stop with Ctrl-C',
      );
      const signal = await stopSignal;
      log.info({ signal }, 'shutting down');
      await service.stop(flags.grace);
      log.info('stopped');
    });
}
