import { join } from 'node:path';
import { z } from 'zod';
import { readConfigFile } from './file.js';
import { findConfig, type ConfigSources } from './discovery.js';
import { checkIngestSettings, ingestSettingsFrom } from './ingest.js';
import { ConfigError } from './schema.js';
import { settingsShape } from './settings.js';
import type { IngestSettings } from './ingest-settings.js';

export {
  DEFAULT_CLEANUP_INTERVAL_MS,
  DEFAULT_CLEANUP_RETENTION_MS,
  DEFAULT_EVENTS_BUFFER_BYTES,
  DEFAULT_UPLOAD_MAX_BYTES,
  LOG_LEVELS,
} from './settings.js';
export { ConfigError } from './schema.js';
export type { ConfigSources } from './discovery.js';

/** Settings from the environment. The only module that reads `process.env`. */
export interface Config {
  /** ZooKeeper connection string (host:port list, optional chroot), when one is given. */
  zkConnect: string | undefined;
  /** Apache ZooKeeper distribution to run locally instead of Debian's package. */
  zookeeperHome: string | undefined;
  javaHome: string | undefined;
  /** Where the embedded ZooKeeper, local storage and the running service's endpoint file live. */
  dataDir: string;
  /** Where the settings came from: the config file, the service's home, where else was looked. */
  sources: ConfigSources;
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
  /**
   * Attempts at a job's step that may end with their process or session before the job fails
   * as poison (`MRTQ_POISON_ATTEMPTS`, default 3; 0: never).
   */
  poisonAttempts: number | undefined;
  /** How often `mrtq serve` runs cleanup (`MRTQ_CLEANUP_INTERVAL_MS`, default hourly); 0: never. */
  cleanupIntervalMs: number;
  /** What scheduled cleanup keeps (`MRTQ_CLEANUP_RETENTION_MS`): as `mrtq cleanup --retention`, 7 days. */
  cleanupRetentionMs: number;
  /**
   * The longest child list (a `getChildren` reply, bytes) the other readers of the tree accept
   * (`MRTQ_PEER_CHILD_LIST_BYTES`; default the Java client's jute.maxbuffer, 0xfffff): folders
   * near it are warned about in logs, metrics and doctor.
   */
  peerChildListBytes: number;
  /** pino level: fatal, error, warn, info, debug, trace or silent (LOG_LEVEL). */
  logLevel: string;
  /**
   * Human-readable log lines (true) or JSON lines (false), as LOG_PRETTY says; unset: human-readable
   * on a terminal, JSON otherwise.
   */
  logPretty: boolean | undefined;
  /**
   * `MRTQ_API_TOKEN`: a bearer token with role admin, named `token` (besides the credentials
   * file); with neither, the HTTP API's mutating routes are refused (403).
   */
  apiToken: string | undefined;
  /**
   * The credentials file (`MRTQ_CREDENTIALS`, edited by `mrtq credentials`): named bearer tokens
   * and HTTP basic users with roles and collections; undefined: none.
   */
  credentialsFile: string | undefined;
  /**
   * The file of HTTP basic credentials (`user:<scrypt hash>` lines, `MRTQ_BASIC_AUTH`, from before
   * roles): users with role submit for Merritt's front door (`/poster/*`); undefined: none.
   */
  basicAuthFile: string | undefined;
  /** The largest payload `/poster/*` takes (`MRTQ_UPLOAD_MAX_BYTES`, default 10 GiB); larger: 413. */
  uploadMaxBytes: number;
  /** Where `mrtq serve` listens for HTTP (loopback by default). */
  httpHost: string;
  httpPort: number;
  /** How many bytes a client of `/events` may fall behind before it is cut off (`MRTQ_EVENTS_BUFFER_BYTES`). */
  eventsBufferBytes: number;
  /** Jaeger UI base URL (`MRTQ_JAEGER_URL`): the dashboard links jobs and batches to their traces there. */
  jaegerUrl: string | undefined;
  /**
   * The audit log and the histories (issue 35): this process writes `<dir>/audit` and
   * `<dir>/history` (MRTQ_RECORDS_DIR, default `<dataDir>/records`; a folder every host shares,
   * or one per host with the others' in `readDirs`, MRTQ_RECORDS_READ_DIRS), kept for their
   * retention (0: for ever).
   */
  records: { dir: string; readDirs: readonly string[]; historyRetentionMs: number; auditRetentionMs: number };
  /** Settings of the ingest steps (fetch limits, working storage, local services, SMTP). */
  ingest: IngestSettings;
}

const settingsSchema = z.object(settingsShape).superRefine(checkIngestSettings);

/**
 * Reads the configuration from the environment, over a config file when one is found (`--config`,
 * `MRTQ_CONFIG`, `MRTQ_HOME`, the current directory upward, the per-user file: see
 * {@link findConfig}); throws a {@link ConfigError} naming every invalid setting.
 */
export function loadConfig(
  given: NodeJS.ProcessEnv = process.env,
  configFile?: string,
  cwd: string = process.cwd(),
): Config {
  const sources = findConfig(given, cwd, configFile);
  const fromFile = sources.file ? readConfigFile(sources.file) : {};
  const env: NodeJS.ProcessEnv = { ...fromFile, ...given };
  const inFile = (name: string): string =>
    fromFile[name] !== undefined && given[name] === undefined ? ` (in ${sources.file})` : '';
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) throw ConfigError.of(parsed.error, env, inFile);
  const s = parsed.data;
  const dataDir = s.MRTQ_DATA_DIR ?? join(sources.home, '.data');
  return {
    zkConnect: s.ZK_CONNECT,
    zookeeperHome: s.ZOOKEEPER_HOME,
    javaHome: s.JAVA_HOME,
    dataDir,
    sources,
    containers: s.MRTQ_CONTAINERS,
    zkSessionTimeoutMs: s.ZK_SESSION_TIMEOUT_MS,
    incompleteJobFailMs: s.MRTQ_INCOMPLETE_JOB_FAIL_MS,
    poisonAttempts: s.MRTQ_POISON_ATTEMPTS,
    startTimeoutMs: s.MRTQ_START_TIMEOUT_MS,
    cleanupIntervalMs: s.MRTQ_CLEANUP_INTERVAL_MS,
    cleanupRetentionMs: s.MRTQ_CLEANUP_RETENTION_MS,
    peerChildListBytes: s.MRTQ_PEER_CHILD_LIST_BYTES,
    logLevel: s.LOG_LEVEL,
    logPretty: s.LOG_PRETTY,
    apiToken: s.MRTQ_API_TOKEN,
    basicAuthFile: s.MRTQ_BASIC_AUTH,
    credentialsFile: s.MRTQ_CREDENTIALS,
    uploadMaxBytes: s.MRTQ_UPLOAD_MAX_BYTES,
    httpHost: s.MRTQ_HTTP_HOST,
    httpPort: s.MRTQ_HTTP_PORT,
    eventsBufferBytes: s.MRTQ_EVENTS_BUFFER_BYTES,
    jaegerUrl: s.MRTQ_JAEGER_URL,
    records: {
      dir: s.MRTQ_RECORDS_DIR ?? join(dataDir, 'records'),
      readDirs: s.MRTQ_RECORDS_READ_DIRS ?? [],
      historyRetentionMs: s.MRTQ_HISTORY_RETENTION_MS,
      auditRetentionMs: s.MRTQ_AUDIT_RETENTION_MS,
    },
    ingest: ingestSettingsFrom(s, dataDir),
  };
}
