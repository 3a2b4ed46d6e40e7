import { resolve } from 'node:path';
import { loadIngestSettings } from './config-ingest.js';
import type { IngestSettings } from './steps/ingest/contracts.js';

/** Settings from the environment. The only module that reads `process.env`. */
export interface Config {
  /** ZooKeeper connection string (host:port list, optional chroot), when one is given. */
  zkConnect: string | undefined;
  /** Apache ZooKeeper distribution to run locally instead of Debian's package. */
  zookeeperHome: string | undefined;
  javaHome: string | undefined;
  /** Where the embedded ZooKeeper and local storage keep their data. */
  dataDir: string;
  /** `off` skips the container runtime probe and goes straight to a local server process. */
  containers: 'auto' | 'off';
  /** Session timeout requested from ZooKeeper, ms. */
  zkSessionTimeoutMs: number;
  logLevel: string;
  /** Settings of the ingest steps (fetch limits, working storage, local services, SMTP). */
  ingest: IngestSettings;
}

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Reads the configuration; throws an error naming the setting when a value is invalid. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const containers = (env.MRTQ_CONTAINERS ?? 'auto').toLowerCase();
  if (containers !== 'auto' && containers !== 'off') {
    throw new Error(`MRTQ_CONTAINERS must be "auto" or "off", got "${env.MRTQ_CONTAINERS}"`);
  }
  const dataDir = resolve(env.MRTQ_DATA_DIR ?? '.data');
  return {
    zkConnect: env.ZK_CONNECT?.trim() || undefined,
    zookeeperHome: env.ZOOKEEPER_HOME || undefined,
    javaHome: env.JAVA_HOME || undefined,
    dataDir,
    containers,
    zkSessionTimeoutMs: positiveInt('ZK_SESSION_TIMEOUT_MS', env.ZK_SESSION_TIMEOUT_MS, 10_000),
    logLevel: env.LOG_LEVEL ?? 'info',
    ingest: loadIngestSettings(env, dataDir),
  };
}
