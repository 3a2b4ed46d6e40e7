import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import type { BatchWork } from './queue/batch-acquire.js';
import { registerEngine } from './queue/engines.js';
import { GroupCommit } from './queue/group-commit.js';
import type { Config } from './config.js';
import { merrittJobLifecycle, type JobLifecycle } from '../machines/index.js';
import { BATCH_WORK, Engine, type EngineOptions } from './engine/engine.js';
import { countingLedger, fileLedger, noLedger } from './engine/ledger.js';
import { EngineMetrics } from './telemetry/engine-metrics.js';
import type { AccessSteps, BatchSteps, JobStep, JobStepSet } from './steps/contracts.js';
import { startInspector, type RunningInspector } from './inspect/index.js';
import { startHttpApi } from './http/index.js';
import { createIngestSteps } from './steps/ingest/index.js';
import { loadProfiles, type ProfileStore } from './steps/ingest/profiles.js';
import { createSimulatedSteps } from './steps/simulated.js';
import { connectZk, type ZkClient } from './zk/index.js';
import { startEmbedded } from './zk-server/embedded.js';

/** How `mrtq serve` runs; every field has a default. */
export interface ServiceOptions {
  /** ZooKeeper to use (else ZK_CONNECT, else the embedded server). */
  zkConnect?: string;
  /** The job lifecycle to run (default Merritt's, machines/states.ts). */
  lifecycle?: JobLifecycle;
  /** Steps of the lifecycle's own working states, beside (or instead of) the built-in ones. */
  extraJobSteps?: Readonly<Record<string, JobStep>>;
  jobStates?: readonly string[];
  batchWork?: readonly BatchWork[];
  /** Which step implementations run: the ingest steps (default) or simulated ones (tests, benchmarks). */
  steps?: 'ingest' | 'simulated';
  stepDelayMs?: number;
  /** Append every step start and commit to this JSON-lines file. */
  ledgerFile?: string;
  sweepIntervalMs?: number;
  limit?: number;
  inspectPort?: number;
  /** HTTP API port (0 = a free one); `false` serves no HTTP. Default: the configured port. */
  httpPort?: number | false;
}

/** A running service: stop() drains the engine and closes the session. */
export interface Service {
  zk: ZkClient;
  engine: Engine;
  connectString: string;
  inspector?: RunningInspector;
  /** The HTTP API's base URL, when it serves one. */
  httpUrl?: string;
  stop(graceMs?: number): Promise<void>;
}

async function resolveConnectString(config: Config, options: ServiceOptions, log: Logger): Promise<string> {
  const given = options.zkConnect ?? config.zkConnect;
  if (given) return given;
  const embedded = await startEmbedded(config);
  log.info(
    { connectString: embedded.connectString, source: embedded.source, reused: embedded.reused },
    'embedded ZooKeeper',
  );
  return embedded.connectString;
}

/** The composition root: wires ZooKeeper, the store, the steps and the engine. */
export async function startService(config: Config, options: ServiceOptions, log: Logger): Promise<Service> {
  // The heap budget it was started with (SERVE_NODE_FLAGS), or V8's default from the machine's memory.
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  log.info({ pid: process.pid, heapLimitMb }, 'service starting');
  const connectString = await resolveConnectString(config, options, log);
  const inspector =
    options.inspectPort !== undefined ? await startInspector({ port: options.inspectPort }) : undefined;
  if (inspector)
    log.info({ url: inspector.url }, 'Stately inspector relay (open in a browser on this machine)');
  const metrics = new EngineMetrics();
  const zk = await connectZk({
    connectString,
    sessionTimeoutMs: config.zkSessionTimeoutMs,
    logger: log,
    onRequest: (operation, ms, outcome) => metrics.zkRequest(operation, ms, outcome),
  });
  const session = zk.session$.subscribe((event) => log.info(event, 'zookeeper session'));
  const queue = {
    zk,
    lifecycle: options.lifecycle ?? merrittJobLifecycle,
    log: log.child({ component: 'queue' }),
    now: () => new Date(),
    commits: new GroupCommit(zk),
  };
  // The HTTP API validates submissions against the profiles: the ingest steps' store, or one
  // loaded for it when the steps are simulated.
  const steps: {
    jobSteps: JobStepSet;
    batchSteps: BatchSteps;
    accessSteps: AccessSteps;
    profiles: ProfileStore;
    close?: () => Promise<void>;
  } =
    options.steps === 'simulated'
      ? {
          ...createSimulatedSteps({ stepDelayMs: options.stepDelayMs }),
          profiles: await loadProfiles(config.ingest.profilesDir),
        }
      : await createIngestSteps(config.ingest, queue);
  const ledgerFile = options.ledgerFile ? fileLedger(options.ledgerFile) : undefined;
  const engine = new Engine(
    {
      queue,
      jobSteps: { ...steps.jobSteps, steps: { ...steps.jobSteps.steps, ...options.extraJobSteps } },
      batchSteps: steps.batchSteps,
      accessSteps: steps.accessSteps,
      ledger: countingLedger(ledgerFile ?? noLedger, metrics),
      metrics,
      log: log.child({ component: 'engine' }),
      inspect: inspector?.inspect,
    },
    {
      jobStates: options.jobStates,
      batchWork: options.batchWork,
      sweepIntervalMs: options.sweepIntervalMs,
      limits: options.limit !== undefined ? uniformLimits(queue.lifecycle, options.limit) : undefined,
    },
  );
  await engine.start();
  const api =
    options.httpPort === false
      ? undefined
      : await startHttpApi(
          {
            queue,
            profiles: steps.profiles,
            token: config.apiToken,
            engine,
            metrics,
            uploadDir: uploadDirOf(config),
            jaegerUrl: config.jaegerUrl,
            ready: () => zk.isConnected,
            log,
          },
          { host: config.httpHost, port: options.httpPort ?? config.httpPort },
        );
  if (api)
    log.info(
      { url: api.url, auth: config.apiToken ? 'bearer token' : 'read-only (no MRTQ_API_TOKEN)' },
      'HTTP API',
    );
  // Operators (GET /engines, the dashboard) see this process and whose session holds a lock.
  const registration = await registerEngine(queue, {
    host: hostname(),
    pid: process.pid,
    version: packageVersion(),
    states: [...engine.served.jobStates],
    batchWork: [...engine.served.batchWork],
    startedAt: new Date().toISOString(),
    ...(api ? { httpUrl: api.url } : {}),
  });
  return {
    httpUrl: api?.url,
    zk,
    engine,
    connectString,
    inspector,
    async stop(graceMs = 10_000) {
      await api?.close();
      await engine.stop(graceMs);
      ledgerFile?.close();
      await registration.close();
      await steps.close?.();
      session.unsubscribe();
      await zk.close();
      await inspector?.stop();
    },
  };
}

/** The version of this package, as the engine registration reports it. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Uploaded manifests go under the first `file://` root, where the ingest steps may read them. */
function uploadDirOf(config: Config): string | undefined {
  const root = config.ingest.fetch.roots[0];
  return root ? join(root, 'uploads') : undefined;
}

function uniformLimits(lifecycle: JobLifecycle, limit: number): EngineOptions['limits'] {
  return Object.fromEntries([...lifecycle.servableStates, ...BATCH_WORK].map((s) => [s, limit]));
}
