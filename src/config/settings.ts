import { z } from 'zod';
import { ingestSettingsShape } from './ingest.js';
import { JAVA_CHILD_LIST_BYTES } from './child-list-limit.js';
import { durationOrOff, flag, httpUrl, oneOf, path, pathList, port, setting, wholeNumber } from './schema.js';

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

/** How long the journal of job and batch histories keeps a day's file (MRTQ_HISTORY_RETENTION_MS): 90 days. */
export const DEFAULT_HISTORY_RETENTION_MS = 90 * 86_400_000;
/** How long the audit log keeps a day's file (MRTQ_AUDIT_RETENTION_MS): 400 days, a year and a margin. */
export const DEFAULT_AUDIT_RETENTION_MS = 400 * 86_400_000;

/**
 * The largest payload Merritt's front door (`POST /poster/*`) takes by default
 * (`MRTQ_UPLOAD_MAX_BYTES`): Merritt itself sets none, and its containers run to gigabytes.
 */
export const DEFAULT_UPLOAD_MAX_BYTES = 10 * 1024 ** 3;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** pino's levels, and `silent`. */
export const LOG_LEVELS: readonly string[] = LEVELS;

/** The service's own settings, by environment variable (the ingest steps' are in config-ingest.ts). */
const serviceSettingsShape = {
  ZK_CONNECT: setting(z.string().optional()),
  ZK_SESSION_TIMEOUT_MS: setting(wholeNumber(1).default(10_000)),
  ZOOKEEPER_HOME: setting(z.string().optional()),
  JAVA_HOME: setting(z.string().optional()),
  LOG_LEVEL: setting(oneOf(LEVELS).default('info')),
  LOG_PRETTY: setting(flag().optional()),
  MRTQ_DATA_DIR: setting(path().optional()),
  MRTQ_CONTAINERS: setting(oneOf(['auto', 'off'], 'must be "auto" or "off"').default('auto')),
  MRTQ_API_TOKEN: setting(z.string().optional()),
  MRTQ_BASIC_AUTH: setting(path().optional()),
  MRTQ_CREDENTIALS: setting(path().optional()),
  MRTQ_UPLOAD_MAX_BYTES: setting(wholeNumber(1).default(DEFAULT_UPLOAD_MAX_BYTES)),
  MRTQ_HTTP_HOST: setting(z.string().default('127.0.0.1')),
  MRTQ_HTTP_PORT: setting(port().default(8470)),
  MRTQ_EVENTS_BUFFER_BYTES: setting(wholeNumber(1).default(DEFAULT_EVENTS_BUFFER_BYTES)),
  MRTQ_JAEGER_URL: setting(httpUrl().optional()),
  MRTQ_START_TIMEOUT_MS: setting(wholeNumber(1).optional()),
  MRTQ_INCOMPLETE_JOB_FAIL_MS: setting(wholeNumber(0).optional()),
  MRTQ_POISON_ATTEMPTS: setting(wholeNumber(0).optional()),
  MRTQ_CLEANUP_INTERVAL_MS: setting(durationOrOff().default(DEFAULT_CLEANUP_INTERVAL_MS)),
  MRTQ_CLEANUP_RETENTION_MS: setting(wholeNumber(0).default(DEFAULT_CLEANUP_RETENTION_MS)),
  MRTQ_PEER_CHILD_LIST_BYTES: setting(wholeNumber(1024).default(JAVA_CHILD_LIST_BYTES)),
  MRTQ_RECORDS_DIR: setting(path().optional()),
  MRTQ_RECORDS_READ_DIRS: setting(pathList().optional()),
  MRTQ_HISTORY_RETENTION_MS: setting(wholeNumber(0).default(DEFAULT_HISTORY_RETENTION_MS)),
  MRTQ_AUDIT_RETENTION_MS: setting(wholeNumber(0).default(DEFAULT_AUDIT_RETENTION_MS)),
};

/** Every setting, by environment variable: the schema `loadConfig` reads the environment with. */
export const settingsShape = { ...serviceSettingsShape, ...ingestSettingsShape };

/** Settings a config file may hold: the environment variables' own names. */
export const SETTING_NAMES: readonly string[] = Object.keys(settingsShape);

/** Settings that name files or directories: relative ones in a config file are relative to the file. */
export const PATH_SETTINGS: ReadonlySet<string> = new Set([
  'MRTQ_DATA_DIR',
  'MRTQ_RECORDS_DIR',
  'MRTQ_RECORDS_READ_DIRS',
  'MRTQ_BASIC_AUTH',
  'MRTQ_CREDENTIALS',
  'MRTQ_FILE_ROOTS',
  'MRTQ_WORK_ROOT',
  'MRTQ_PROFILES_DIR',
  'ZOOKEEPER_HOME',
  'JAVA_HOME',
]);
