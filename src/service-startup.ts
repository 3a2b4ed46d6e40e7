import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { DeploymentAccess, DeploymentStates } from '../machines/deployment.js';
import type { Config } from './config/config.js';
import { packagePath } from './package-root.js';
import type { Engine } from './engine/engine.js';
import type { QueueContext } from './queue/tree/context.js';
import { engineId, registerEngine, type EngineRegistration } from './queue/tree/engines.js';
import {
  ensureChroot,
  parseConnectString,
  retryWhileUnavailable,
  whenConnected,
  type RetryOptions,
  type ZkClient,
  type ZkOptions,
} from './zk/index.js';

/** How long start-up waits for a service, and what it does meanwhile. */
export interface StartUpOptions {
  /** Give up after this long (ZooKeeper's last error is thrown); undefined: never. */
  startTimeoutMs?: number;
  /** Aborted when the process is asked to stop. */
  signal?: AbortSignal;
}

/** Start-up retries ZooKeeper's unavailability until the start timeout (default: forever). */
export function startUpRetry(
  config: Config,
  options: StartUpOptions,
  log: Logger,
): Omit<RetryOptions, 'step'> {
  const timeoutMs = options.startTimeoutMs ?? config.startTimeoutMs;
  return {
    log: log.child({ component: 'startup' }),
    until: timeoutMs === undefined ? undefined : Date.now() + timeoutMs,
    signal: options.signal,
  };
}

/**
 * The start-up steps that need ZooKeeper, each tried again while ZooKeeper is unavailable (a
 * pause just after the session connects, a server not up yet): the session, the chroot, the
 * queue's folders and the engine's consumers, and the engine's registration under `/engines`.
 * Each step is safe to run again after an unknown outcome.
 */
export async function startUp(
  parts: {
    zk: ZkClient;
    zkOptions: ZkOptions;
    queue: QueueContext;
    engine: Engine;
    httpUrl?: string;
    /** MRTQ_DEPLOYMENT and the states it leaves to Merritt, announced for `GET /engines`. */
    deployment?: Pick<DeploymentStates, 'deployment' | 'leftToMerritt'>;
    /** The access queues served and those left to Merritt's storage service, announced likewise. */
    access?: DeploymentAccess;
  },
  retry: Omit<RetryOptions, 'step'>,
  closing: Closing,
): Promise<EngineRegistration> {
  const { zk, zkOptions, queue, engine } = parts;
  // Each wait for a session is one attempt (and one log line); the client keeps trying meanwhile.
  const attemptMs = Math.max(1000, Math.min((zkOptions.sessionTimeoutMs ?? 10_000) / 2, 5000));
  const within = (): number =>
    retry.until === undefined ? attemptMs : Math.max(1, Math.min(attemptMs, retry.until - Date.now()));
  await retryWhileUnavailable(() => whenConnected(zk, within()), {
    ...retry,
    step: `ZooKeeper session at ${zkOptions.connectString}`,
  });
  if (parseConnectString(zkOptions.connectString).chroot) {
    // Its short session logs nothing (the retry says why an attempt failed): the process's
    // session log stays the engine's own session's.
    const quiet = { ...zkOptions, logger: undefined, onRequest: undefined };
    await retryWhileUnavailable(() => ensureChroot({ ...quiet, connectTimeoutMs: within() }), {
      ...retry,
      step: 'chroot',
    });
  }
  // An engine whose start failed started nothing (only creating the queue's folders needs ZooKeeper).
  await retryWhileUnavailable(() => engine.start(), { ...retry, step: 'queue tree' });
  closing.add(() => engine.stop(0));
  // Operators (GET /engines, the dashboard) see this process and whose session holds a lock.
  const announcement = {
    host: hostname(),
    pid: process.pid,
    version: packageVersion(),
    states: [...engine.served.jobStates],
    batchWork: [...engine.served.batchWork],
    startedAt: new Date().toISOString(),
    ...(parts.httpUrl ? { httpUrl: parts.httpUrl } : {}),
    ...(parts.deployment
      ? {
          deployment: parts.deployment.deployment,
          leftToMerritt: parts.deployment.leftToMerritt.map(({ state, service }) => ({ state, service })),
        }
      : {}),
    ...(parts.access
      ? {
          accessQueues: [...parts.access.served],
          accessLeftToMerritt: parts.access.leftToMerritt.map(({ queue, service }) => ({ queue, service })),
        }
      : {}),
  };
  // One id for every attempt: a create whose answer was lost is found as ours, not left behind.
  const id = engine.id ?? engineId(announcement.host, announcement.pid);
  return retryWhileUnavailable(() => registerEngine(queue, announcement, id), {
    ...retry,
    step: 'engine registration',
  });
}

/** What start-up opened so far, closed in reverse order when it fails or is stopped. */
export class Closing {
  private readonly closers: (() => Promise<unknown>)[] = [];

  add(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  async run(log: Logger): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) {
      await close().catch((err: unknown) => log.warn({ err }, 'closing after a failed start'));
    }
  }
}

/** The version of this package, as the engine registration reports it. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
