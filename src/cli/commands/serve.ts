import { isatty } from 'node:tty';
import type { Command } from 'commander';
import { hostname } from 'node:os';
import { merrittJobLifecycle } from '../../../machines/index.js';
import type { AccessQueue } from '../../../machines/index.js';
import { ACCESS_QUEUES, BATCH_WORK, DEFAULT_BATCH_LIMIT, DEFAULT_JOB_LIMIT } from '../../engine/engine.js';
import { reachableUrl, removeEndpoint, writeEndpoint } from '../../endpoint-file.js';
import { createLogger } from '../../logger.js';
import type { BatchWork } from '../../queue/batches/acquire.js';
import { servedStates, startService, type Service, type ServiceOptions } from '../../service.js';
import { zkCliError } from '../connection.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { nonNegative } from '../options.js';
import { onStopSignals, signalExitCode } from '../../signals.js';

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
  access?: AccessQueue[];
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
  startTimeout?: number;
  alertsEvery: number;
}

function serviceOptions(ctx: CliContext, flags: ServeFlags, signal: AbortSignal): ServiceOptions {
  return {
    zkConnect: ctx.zkFlag(),
    jobStates: flags.states,
    batchWork: flags.batches ?? (flags.states ? [] : undefined),
    accessQueues: flags.access,
    steps: flags.steps as ServiceOptions['steps'],
    stepDelayMs: flags.stepDelay,
    ledgerFile: flags.ledger,
    sweepIntervalMs: flags.sweep,
    limit: flags.limit,
    inspectPort: flags.inspect ? flags.inspectPort : undefined,
    httpPort: flags.http ? flags.httpPort : false,
    alertsIntervalMs: flags.alertsEvery,
    // 0: never give up, whatever the configuration says.
    startTimeoutMs: flags.startTimeout === 0 ? undefined : (flags.startTimeout ?? ctx.config.startTimeoutMs),
    signal,
  };
}

/** `--states` may narrow what the deployment serves, not ask for a state it leaves to Merritt. */
function usableStates(ctx: CliContext, states: string[] | undefined): void {
  try {
    servedStates(ctx.config, { jobStates: states }, merrittJobLifecycle);
  } catch (err) {
    throw new CliError((err as Error).message, ExitCode.usage);
  }
}

/**
 * Tells the command line where the running service is (its endpoint file, read by `mrtq` run from
 * any directory) and the operator where its dashboard is: one plain line on stderr on a terminal.
 */
function announce(ctx: CliContext, service: Service): { file: string; dashboardUrl: string | undefined } {
  const httpUrl = service.httpUrl ? reachableUrl(service.httpUrl) : undefined;
  const dashboardUrl = httpUrl ? `${httpUrl}/ui/` : undefined;
  const file = writeEndpoint(ctx.config.dataDir, {
    pid: process.pid,
    host: hostname(),
    connectString: service.connectString,
    ...(httpUrl ? { httpUrl, dashboardUrl } : {}),
    startedAt: new Date().toISOString(),
  });
  // On a terminal (human-readable logs) one plain line; JSON logs carry it in "service running".
  const human = ctx.config.logPretty ?? isatty(1);
  if (dashboardUrl && human) ctx.stderr.write(`dashboard: ${dashboardUrl}\n`);
  return { file, dashboardUrl };
}

/** `mrtq serve`: the engine as a long-running service, stopped gracefully by SIGTERM or SIGINT. */
export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the engine (starts an embedded ZooKeeper when none is configured)')
    .option(
      '--states <list>',
      `job states to consume (${merrittJobLifecycle.servableStates.join(',')}); default all, less the states MRTQ_DEPLOYMENT=merritt leaves to Merritt's services`,
      listOf('job state', merrittJobLifecycle.servableStates),
    )
    .option(
      '--batches <list>',
      `batch work to do (${BATCH_WORK.join(',')}, or none); default all, or none with --states`,
      listOf('batch work', BATCH_WORK),
    )
    .option(
      '--access <list>',
      `access queues to consume (${ACCESS_QUEUES.join(',')}, or none); default both, none with MRTQ_DEPLOYMENT=merritt (Merritt's storage service consumes them there)`,
      listOf('access queue', ACCESS_QUEUES),
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
    .option(
      '--limit <n>',
      `items worked on at once per job state and per batch work (default ${DEFAULT_JOB_LIMIT} a job state, ${DEFAULT_BATCH_LIMIT} a batch work)`,
      nonNegative('--limit'),
    )
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
    .option(
      '--alerts-every <ms>',
      'how often the alert rules are evaluated (GET /alerts, mrtq_alert_active); 0 never, and never with --no-http',
      nonNegative('--alerts-every'),
      30_000,
    )
    .option(
      '--start-timeout <ms>',
      'give up starting (exit 3) when ZooKeeper is unavailable this long; 0 never (default MRTQ_START_TIMEOUT_MS, else never)',
      nonNegative('--start-timeout'),
    )
    .option('--inspect', 'start the Stately inspector relay and attach it to every machine actor')
    .option('--inspect-port <port>', 'port of the inspector relay', nonNegative('--inspect-port'), 8080)
    .action(async (flags: ServeFlags) => {
      if (flags.steps !== 'ingest' && flags.steps !== 'simulated') {
        throw new CliError(`unknown --steps "${flags.steps}" (available: ingest, simulated)`, ExitCode.usage);
      }
      usableStates(ctx, flags.states);
      const log = createLogger({ level: ctx.config.logLevel, pretty: ctx.config.logPretty });
      // Listen for the stop signal before starting: a SIGTERM during start-up (which waits for
      // ZooKeeper as long as it takes) ends it cleanly. The same signal delivered twice (`npm
      // start` forwards it, systemd signals the whole group) is one; a second one a second or
      // more later ends the process at once, without waiting for the steps in flight.
      const stopping = new AbortController();
      const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
        onStopSignals(
          (signal) => {
            stopping.abort(new Error(`stopped by ${signal}`));
            resolve(signal);
          },
          (signal) => {
            log.warn({ signal }, 'stopping at once: the steps in flight are left to be taken again');
            process.exit(signalExitCode(signal));
          },
        );
      });
      let service: Service;
      try {
        service = await startService(ctx.config, serviceOptions(ctx, flags, stopping.signal), log);
      } catch (err) {
        if (!stopping.signal.aborted) throw zkCliError(err) ?? err;
        log.info({ signal: await stopSignal }, 'stopped during start-up');
        return;
      }
      const { file: endpoint, dashboardUrl } = announce(ctx, service);
      log.info(
        {
          connectString: service.connectString,
          http: service.httpUrl,
          dashboard: dashboardUrl,
          pid: process.pid,
          endpoint,
        },
        'service running; stop with Ctrl-C',
      );
      const signal = await stopSignal;
      log.info({ signal }, 'shutting down');
      try {
        await service.stop(flags.grace);
      } finally {
        removeEndpoint(ctx.config.dataDir);
      }
      log.info('stopped');
    });
}
