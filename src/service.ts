import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import type { BatchWork } from './queue/batches/acquire.js';
import type { QueueContext } from './queue/tree/context.js';
import { GroupCommit } from './zk/group-commit.js';
import type { Config } from './config/config.js';
import {
  accessStateTable,
  merrittJobLifecycle,
  type AccessQueue,
  type JobLifecycle,
} from '../machines/index.js';
import {
  deploymentAccess,
  deploymentStates,
  type DeploymentAccess,
  type DeploymentStates,
} from '../machines/deployment.js';
import { ACCESS_QUEUES, BATCH_WORK, Engine, type EngineOptions } from './engine/engine.js';
import { countingLedger, fileLedger, noLedger, teeLedger, type Ledger } from './engine/ledger.js';
import { openRecords } from './history/records.js';
import { startChildListWatch } from './engine/child-list-watch.js';
import { startCleanupSchedule } from './admin/cleanup-schedule.js';
import { releaseHeldItems } from './admin/collections.js';
import { startWindowsKeeper } from './engine/windows-keeper.js';
import { EngineMetrics } from './telemetry/engine-metrics.js';
import { MetricsHistory, recordInto, startSampling, type Sampling } from './telemetry/metrics-history.js';
import { jobDepths } from './http/metrics.js';
import type { AccessSteps, BatchSteps, JobStep, JobStepSet } from './steps/contracts.js';
import { startInspector, type RunningInspector } from './inspect/index.js';
import { AlertMonitor } from './alerts/monitor.js';
import { startHttpApi, type HttpApiDeps, type RunningHttpApi } from './http/index.js';
import { createIngestSteps } from './steps/ingest.js';
import { loadProfiles, type ProfileStore } from './steps/formats/profiles/profiles.js';
import { createSimulatedSteps } from './steps/simulated.js';
import { createZk, type ZkClient, type ZkOptions } from './zk/index.js';
import { startEmbedded } from './zk-server/embedded.js';
import { readEndpoint } from './endpoint-file.js';
import { Closing, startUp, startUpRetry, type StartUpOptions } from './service-startup.js';
import { engineId } from './queue/tree/engines.js';
import { hostname } from 'node:os';

/** How `mrtq serve` runs; every field has a default. */
export interface ServiceOptions extends StartUpOptions {
  /** ZooKeeper to use (else ZK_CONNECT, else the embedded server). */
  zkConnect?: string;
  /** The job lifecycle to run (default Merritt's, machines/states.ts). */
  lifecycle?: JobLifecycle;
  /** Steps of the lifecycle's own working states, beside (or instead of) the built-in ones. */
  extraJobSteps?: Readonly<Record<string, JobStep>>;
  jobStates?: readonly string[];
  batchWork?: readonly BatchWork[];
  /**
   * Access queues to consume (`mrtq serve --access`); default both standalone, none in a Merritt
   * deployment (mrt-store consumes them there), where naming them opts in.
   */
  accessQueues?: readonly AccessQueue[];
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
  /** How often the dashboard's charts are sampled (GET /metrics/history); default 10 s. */
  metricsSampleMs?: number;
  /** How often the child lists Merritt's readers take are sized (default 60 s; 0: never). */
  childListCheckMs?: number;
  /** How often the alert rules are evaluated with the HTTP API (default 30 s; 0: never). */
  alertsIntervalMs?: number;
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
  // Another service running from this data directory: share its ZooKeeper, never start a second.
  const running = readEndpoint(config.dataDir);
  if (running.kind === 'live') {
    const { connectString, pid } = running.record;
    log.info(
      { connectString, pid, endpointFile: running.file },
      'ZooKeeper of the service already running here',
    );
    return connectString;
  }
  const embedded = await startEmbedded(config);
  log.info(
    { connectString: embedded.connectString, source: embedded.source, reused: embedded.reused },
    'embedded ZooKeeper',
  );
  return embedded.connectString;
}

interface ServiceSteps {
  jobSteps: JobStepSet;
  batchSteps: BatchSteps;
  accessSteps: AccessSteps;
  profiles: ProfileStore;
  close?: () => Promise<void>;
}

/**
 * The HTTP API validates submissions against the profiles: the ingest steps' store, or one
 * loaded for it when the steps are simulated.
 */
async function createSteps(
  config: Config,
  options: ServiceOptions,
  queue: QueueContext,
): Promise<ServiceSteps> {
  if (options.steps !== 'simulated') return createIngestSteps(config.ingest, queue);
  return {
    ...createSimulatedSteps({ stepDelayMs: options.stepDelayMs, queue }),
    profiles: await loadProfiles(config.ingest.profilesDir, { log: queue.log }),
  };
}

/**
 * The composition root: wires ZooKeeper, the store, the steps and the engine. The HTTP API
 * listens first, so health checks are answered (`/readyz` 503) while the start-up steps that need
 * ZooKeeper wait for it; see {@link startUp}.
 */
export async function startService(config: Config, options: ServiceOptions, log: Logger): Promise<Service> {
  // The heap budget it was started with (SERVE_NODE_FLAGS), or V8's default from the machine's memory.
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  log.info({ pid: process.pid, heapLimitMb }, 'service starting');
  const connectString = await resolveConnectString(config, options, log);
  const metrics = new EngineMetrics();
  const zkOptions: ZkOptions = {
    connectString,
    sessionTimeoutMs: config.zkSessionTimeoutMs,
    logger: log,
    onRequest: (operation, ms, outcome) => metrics.zkRequest(operation, ms, outcome),
  };
  const zk = createZk(zkOptions);
  const closing = new Closing();
  closing.add(() => zk.close());
  try {
    const inspector =
      options.inspectPort !== undefined ? await startInspector({ port: options.inspectPort }) : undefined;
    if (inspector) {
      closing.add(() => inspector.stop());
      log.info({ url: inspector.url }, 'Stately inspector relay (open in a browser on this machine)');
    }
    const session = zk.session$.subscribe((event) => log.info(event, 'zookeeper session'));
    closing.add(() => Promise.resolve(session.unsubscribe()));
    const queue: QueueContext = {
      zk,
      lifecycle: options.lifecycle ?? merrittJobLifecycle,
      log: log.child({ component: 'queue' }),
      now: () => new Date(),
      commits: new GroupCommit(zk),
    };
    const history = sampleHistory(queue, metrics, options.metricsSampleMs, log);
    closing.add(() => history.sampling.stop());
    const deployment = servedStates(config, options, queue.lifecycle);
    const access = servedAccess(config, options);
    logDeployment(log, deployment, access);
    const steps = await createSteps(config, options, queue);
    if (steps.close) closing.add(steps.close);
    const ledgerFile = options.ledgerFile ? fileLedger(options.ledgerFile) : undefined;
    if (ledgerFile) closing.add(() => Promise.resolve(ledgerFile.close()));
    // The id it registers under /engines: an operator finds the engine a job's attempts name.
    const id = engineId(hostname(), process.pid);
    const records = openRecords(config.records, id, log.child({ component: 'records' }));
    closing.add(() => records.close());
    const served = { ...options, jobStates: deployment.served, accessQueues: access.served };
    const engine = createEngine(queue, steps, served, {
      engineId: id,
      ledger: ledgerFile ? teeLedger(ledgerFile, records.ledger) : records.ledger,
      metrics,
      log,
      inspector,
      incompleteJobFailMs: config.incompleteJobFailMs,
      poisonAttempts: config.poisonAttempts,
    });
    let running = false;
    const alerts = alertMonitor(queue, options, log);
    const api = await serveHttp(config, options, {
      queue,
      profiles: steps.profiles,
      engine,
      metrics,
      metricsHistory: history.history,
      alerts,
      audit: records.audit,
      history: records.history,
      ready: () => running && zk.isConnected,
      log,
      deployment: { mode: deployment.deployment, leftToMerritt: deployment.leftToMerritt },
      // Merritt's storage service fetches the hand-off manifests and files from here (§1); served
      // whenever MRTQ_PUBLIC_URL is set, so URLs handed off before a switch to standalone still answer.
      ingestQueueRoot: config.ingest.merritt?.publicUrl ? config.ingest.workRoot : undefined,
    });
    if (api) closing.add(() => api.close());
    const registration = await startUp(
      { zk, zkOptions, queue, engine, httpUrl: api?.url, deployment, access },
      startUpRetry(config, options, log),
      closing,
    );
    running = true;
    alerts?.start();
    if (alerts) closing.add(() => alerts.stop());
    // Automatic retention (docs/engine.md): one engine of many cleans at a time.
    const cleaner = startCleanupSchedule(
      { queue, metrics, log },
      {
        intervalMs: config.cleanupIntervalMs,
        retentionMs: config.cleanupRetentionMs,
        workRoot: config.ingest.workRoot,
      },
    );
    // Maintenance windows (docs/engine.md): every engine keeps them, one places or lifts each hold.
    const windows = startWindowsKeeper({ queue, log, releaseHeld: (m) => releaseHeldItems(queue, m) });
    // Merritt's Java readers fail on a child list above their jute.maxbuffer (docs/deploy.md).
    const childLists = startChildListWatch(
      { queue, metrics, log },
      { limitBytes: config.peerChildListBytes, intervalMs: options.childListCheckMs },
    );
    return {
      httpUrl: api?.url,
      zk,
      engine,
      connectString,
      inspector,
      async stop(graceMs = 10_000) {
        running = false;
        await alerts?.stop();
        await api?.close();
        await windows.stop();
        await engine.stop(graceMs);
        await cleaner.stop();
        await childLists.stop();
        await history.sampling.stop();
        ledgerFile?.close();
        await records.close();
        await registration.close();
        await steps.close?.();
        session.unsubscribe();
        await zk.close();
        await inspector?.stop();
      },
    };
  } catch (err) {
    await closing.run(log);
    throw err;
  }
}

/**
 * The last hour of this process's metrics for the dashboard's charts: the engine's own transitions
 * and step durations, and the queue's depth per state read at every sample.
 */
function sampleHistory(
  queue: QueueContext,
  metrics: EngineMetrics,
  intervalMs: number | undefined,
  log: Logger,
): { history: MetricsHistory; sampling: Sampling } {
  const history = new MetricsHistory(queue.lifecycle, { intervalMs });
  recordInto(metrics, history);
  const sampling = startSampling(
    history,
    () => jobDepths(queue),
    (err) => log.debug({ err, component: 'metrics-history' }, 'sample without queue depth'),
  );
  return { history, sampling };
}

/** What the start-up log says of the API's credentials (their sources, never a secret). */
function authSummary(config: Config): string {
  const sources = [
    ...(config.credentialsFile !== undefined ? [`credentials file ${config.credentialsFile}`] : []),
    ...(config.apiToken !== undefined ? ['MRTQ_API_TOKEN (admin)'] : []),
    ...(config.basicAuthFile !== undefined ? [`basic users ${config.basicAuthFile}`] : []),
  ];
  return sources.length > 0 ? sources.join(', ') : 'read-only (no MRTQ_CREDENTIALS or MRTQ_API_TOKEN)';
}

/**
 * The alert rules' evaluation (docs/engine.md, "Alerts"), in each process that serves the HTTP
 * API: `GET /alerts`, the dashboard and `/metrics` show it.
 */
function alertMonitor(queue: QueueContext, options: ServiceOptions, log: Logger): AlertMonitor | undefined {
  if (options.httpPort === false || options.alertsIntervalMs === 0) return undefined;
  return new AlertMonitor({ queue, log, intervalMs: options.alertsIntervalMs });
}

/** The HTTP API, unless the options say none; it listens before start-up needs ZooKeeper. */
async function serveHttp(
  config: Config,
  options: ServiceOptions,
  deps: Pick<
    HttpApiDeps,
    | 'queue'
    | 'profiles'
    | 'engine'
    | 'metrics'
    | 'metricsHistory'
    | 'alerts'
    | 'audit'
    | 'history'
    | 'ready'
    | 'log'
    | 'deployment'
    | 'ingestQueueRoot'
  >,
): Promise<RunningHttpApi | undefined> {
  if (options.httpPort === false) return undefined;
  const api = await startHttpApi(
    {
      ...deps,
      token: config.apiToken,
      basicAuthFile: config.basicAuthFile,
      credentialsFile: config.credentialsFile,
      uploadMaxBytes: config.uploadMaxBytes,
      uploadDir: uploadDirOf(config),
      jaegerUrl: config.jaegerUrl,
      eventsBufferBytes: config.eventsBufferBytes,
    },
    { host: config.httpHost, port: options.httpPort ?? config.httpPort },
  );
  deps.log.info({ url: api.url, auth: authSummary(config) }, 'HTTP API');
  return api;
}

function createEngine(
  queue: QueueContext,
  steps: ServiceSteps,
  options: ServiceOptions,
  parts: {
    engineId: string;
    ledger: Ledger | undefined;
    metrics: EngineMetrics;
    log: Logger;
    inspector?: RunningInspector;
    incompleteJobFailMs?: number;
    poisonAttempts?: number | undefined;
  },
): Engine {
  return new Engine(
    {
      queue,
      jobSteps: { ...steps.jobSteps, steps: { ...steps.jobSteps.steps, ...options.extraJobSteps } },
      batchSteps: steps.batchSteps,
      accessSteps: steps.accessSteps,
      ledger: countingLedger(parts.ledger ?? noLedger, parts.metrics),
      metrics: parts.metrics,
      log: parts.log.child({ component: 'engine' }),
      inspect: parts.inspector?.inspect,
      engineId: parts.engineId,
      ...(parts.poisonAttempts !== undefined ? { poisonAttempts: parts.poisonAttempts } : {}),
    },
    {
      jobStates: options.jobStates,
      batchWork: options.batchWork,
      accessQueues: options.accessQueues,
      sweepIntervalMs: options.sweepIntervalMs,
      incompleteJobFailMs: parts.incompleteJobFailMs,
      limits: options.limit !== undefined ? uniformLimits(queue.lifecycle, options.limit) : undefined,
    },
  );
}

/**
 * The job states this process consumes: the deployment's (MRTQ_DEPLOYMENT; a Merritt deployment
 * leaves the states the lifecycle's table gives a Merritt service to that service), narrowed by
 * `jobStates` (`mrtq serve --states`), which may not ask for a state left to Merritt.
 */
export function servedStates(
  config: Config,
  options: Pick<ServiceOptions, 'jobStates'>,
  lifecycle: JobLifecycle,
): DeploymentStates {
  const states = deploymentStates(lifecycle, config.ingest.deployment, options.jobStates);
  if (states.refused.length > 0) {
    const refused = states.refused.map(({ state, service }) => `${state} (Merritt's ${service} service)`);
    throw new Error(
      `MRTQ_DEPLOYMENT=merritt leaves ${refused.join(', ')} to Merritt: this process cannot consume it`,
    );
  }
  return states;
}

/**
 * The access queues this process consumes (MRTQ_DEPLOYMENT; a Merritt deployment leaves them to
 * the Merritt service the access table names, mrt-store), or those `accessQueues` asks for.
 */
export function servedAccess(
  config: Config,
  options: Pick<ServiceOptions, 'accessQueues'>,
): DeploymentAccess<AccessQueue> {
  return deploymentAccess(accessStateTable, ACCESS_QUEUES, config.ingest.deployment, options.accessQueues);
}

/** The start-up line saying what runs where: the deployment, what is served, what is left to Merritt. */
function logDeployment(log: Logger, deployment: DeploymentStates, access: DeploymentAccess): void {
  const left = deployment.leftToMerritt.map(({ state, service }) => `${state} (${service})`).join(', ');
  const queues = (list: readonly string[]): string => (list.length > 0 ? list.join(', ') : 'none');
  const accessLeft = access.leftToMerritt.map(({ queue, service }) => `${queue} (${service})`).join(', ');
  const accessText =
    access.leftToMerritt.length > 0
      ? `; access queues left to Merritt: ${accessLeft}; served here: ${queues(access.served)}`
      : `; access queues served here: ${queues(access.served)}`;
  log.info(
    {
      deployment: deployment.deployment,
      jobStates: deployment.served,
      leftToMerritt: deployment.leftToMerritt,
      accessQueues: access.served,
      accessLeftToMerritt: access.leftToMerritt,
    },
    deployment.deployment === 'merritt'
      ? `Merritt deployment: states left to Merritt's services: ${left}${accessText}`
      : `standalone deployment: every state served here${accessText}`,
  );
}

/** Uploaded manifests go under the first `file://` root, where the ingest steps may read them. */
function uploadDirOf(config: Config): string | undefined {
  const root = config.ingest.fetch.roots[0];
  return root ? join(root, 'uploads') : undefined;
}

function uniformLimits(lifecycle: JobLifecycle, limit: number): EngineOptions['limits'] {
  return Object.fromEntries([...lifecycle.servableStates, ...BATCH_WORK].map((s) => [s, limit]));
}
