import { resolve } from 'node:path';
import { readConfigFile } from './config-file.js';
import { loadIngestSettings } from './config-ingest.js';
import type { IngestSettings } from './steps/ingest/contracts.js';

/**
 * How far, in bytes, a client of an event stream may fall behind (default of
 * `MRTQ_EVENTS_BUFFER_BYTES`): some 60,000 transitions of about 140 bytes, beyond what the
 * operating system's socket buffers already hold. A client costs no memory of its own for it (the
 * log is shared), so the limit is set by the largest burst a reading client must take whole: the
 * expansion of a batch announces each of its jobs in one turn of the event loop, 50,000 jobs in
 * about 7 MB.
 */
export const DEFAULT_EVENTS_BUFFER_BYTES = 8 * 1024 * 1024;

/** Merritt's ingest cleans its queue every hour; so does `mrtq serve` by default. */
export const DEFAULT_CLEANUP_INTERVAL_MS = 3_600_000;
/** The retention of `mrtq cleanup` (its `--retention` default): a week. */
export const DEFAULT_CLEANUP_RETENTION_MS = 7 * 86_400_000;

/** A duration in ms where `off` (or 0) switches the thing off: 0. */
function intervalOrOff(name: string, raw: string | undefined, fallback: number): number {
  if (raw?.trim().toLowerCase() === 'off') return 0;
  return nonNegativeInt(name, raw) ?? fallback;
}

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
  /** How long `mrtq serve` keeps trying to start while ZooKeeper is unavailable; undefined: forever. */
  startTimeoutMs: number | undefined;
  /**
   * A job this long without a node it needs fails, naming the node (`MRTQ_INCOMPLETE_JOB_FAIL_MS`,
   * default 5 min; 0: it waits for someone to write the node).
   */
  incompleteJobFailMs: number | undefined;
  /** How often `mrtq serve` runs cleanup (`MRTQ_CLEANUP_INTERVAL_MS`, default hourly); 0: never. */
  cleanupIntervalMs: number;
  /** What scheduled cleanup keeps (`MRTQ_CLEANUP_RETENTION_MS`): as `mrtq cleanup --retention`, 7 days. */
  cleanupRetentionMs: number;
  /** pino level: fatal, error, warn, info, debug, trace or silent (LOG_LEVEL). */
  logLevel: string;
  /** Human-readable log lines instead of JSON lines (LOG_PRETTY=true). */
  logPretty: boolean;
  /** Bearer token of the HTTP API's mutating routes; without one they are refused (403). */
  apiToken: string | undefined;
  /** Where `mrtq serve` listens for HTTP (loopback by default). */
  httpHost: string;
  httpPort: number;
  /** How many bytes a client of `/events` may fall behind before it is cut off (`MRTQ_EVENTS_BUFFER_BYTES`). */
  eventsBufferBytes: number;
  /** Jaeger UI base URL (`MRTQ_JAEGER_URL`): the dashboard links jobs and batches to their traces there. */
  jaegerUrl: string | undefined;
  /** Settings of the ingest steps (fetch limits, working storage, local services, SMTP). */
  ingest: IngestSettings;
}

function nonNegativeInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number of milliseconds (0 or more), got "${raw}"`);
  return value;
}

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** pino's levels, and `silent`. */
export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined): string {
  const level = (raw ?? 'info').trim().toLowerCase() || 'info';
  if (!LOG_LEVELS.includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

function flag(name: string, raw: string | undefined): boolean {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function port(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new Error(`${name} must be a port (0-65535), got "${raw}"`);
  return value;
}

function httpUrl(name: string, raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  return value.replace(/\/+$/, '');
}

/**
 * Reads the configuration from the environment, over a config file (`MRTQ_CONFIG` or `--config`)
 * when one is given; throws an error naming the setting when a value is invalid. */
export function loadConfig(given: NodeJS.ProcessEnv = process.env, configFile?: string): Config {
  const file = configFile ?? given.MRTQ_CONFIG;
  const env: NodeJS.ProcessEnv = file ? { ...readConfigFile(file), ...given } : given;
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
    incompleteJobFailMs: nonNegativeInt('MRTQ_INCOMPLETE_JOB_FAIL_MS', env.MRTQ_INCOMPLETE_JOB_FAIL_MS),
    startTimeoutMs: env.MRTQ_START_TIMEOUT_MS
      ? positiveInt('MRTQ_START_TIMEOUT_MS', env.MRTQ_START_TIMEOUT_MS, 0)
      : undefined,
    cleanupIntervalMs: intervalOrOff(
      'MRTQ_CLEANUP_INTERVAL_MS',
      env.MRTQ_CLEANUP_INTERVAL_MS,
      DEFAULT_CLEANUP_INTERVAL_MS,
    ),
    cleanupRetentionMs:
      nonNegativeInt('MRTQ_CLEANUP_RETENTION_MS', env.MRTQ_CLEANUP_RETENTION_MS) ??
      DEFAULT_CLEANUP_RETENTION_MS,
    logLevel: logLevel(env.LOG_LEVEL),
    logPretty: flag('LOG_PRETTY', env.LOG_PRETTY),
    apiToken: env.MRTQ_API_TOKEN || undefined,
    httpHost: env.MRTQ_HTTP_HOST ?? '127.0.0.1',
    httpPort: port('MRTQ_HTTP_PORT', env.MRTQ_HTTP_PORT, 8470),
    eventsBufferBytes: positiveInt(
      'MRTQ_EVENTS_BUFFER_BYTES',
      env.MRTQ_EVENTS_BUFFER_BYTES,
      DEFAULT_EVENTS_BUFFER_BYTES,
    ),
    jaegerUrl: httpUrl('MRTQ_JAEGER_URL', env.MRTQ_JAEGER_URL),
    ingest: loadIngestSettings(env, dataDir),
  };
}
