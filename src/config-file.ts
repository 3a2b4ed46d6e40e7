import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** Settings a config file may hold: the environment variables' own names. */
export const SETTING_NAMES: readonly string[] = [
  'ZK_CONNECT',
  'ZK_SESSION_TIMEOUT_MS',
  'ZOOKEEPER_HOME',
  'JAVA_HOME',
  'LOG_LEVEL',
  'LOG_PRETTY',
  'MRTQ_DATA_DIR',
  'MRTQ_CONTAINERS',
  'MRTQ_API_TOKEN',
  'MRTQ_HTTP_HOST',
  'MRTQ_HTTP_PORT',
  'MRTQ_EVENTS_BUFFER_BYTES',
  'MRTQ_JAEGER_URL',
  'MRTQ_FILE_ROOTS',
  'MRTQ_WORK_ROOT',
  'MRTQ_PROFILES_DIR',
  'MRTQ_MAX_USED_FRACTION',
  'MRTQ_MAX_OBJECT_BYTES',
  'MRTQ_SPACE_WAIT_LIMIT_MS',
  'MRTQ_INCOMPLETE_JOB_FAIL_MS',
  'MRTQ_LARGE_JOB_BYTES',
  'MRTQ_LARGE_JOB_PRIORITY',
  'MRTQ_FETCH_TIMEOUT_MS',
  'MRTQ_FETCH_RETRIES',
  'MRTQ_FETCH_RETRY_BASE_MS',
  'MRTQ_FETCH_CONCURRENCY',
  'MRTQ_MAX_MANIFEST_BYTES',
  'MRTQ_MAX_FILE_BYTES',
  'MRTQ_CONTAINER_MAX_ENTRIES',
  'MRTQ_CONTAINER_MAX_BYTES',
  'MRTQ_CONTAINER_MAX_ENTRY_BYTES',
  'MRTQ_CONTAINER_MAX_RATIO',
  'MRTQ_MINTER_URL',
  'MRTQ_STORAGE_URL',
  'MRTQ_INVENTORY_URL',
  'MRTQ_SMTP_HOST',
  'MRTQ_SMTP_PORT',
  'MRTQ_SMTP_FROM',
  'MRTQ_SMTP_SECURE',
];

/**
 * Reads a YAML or JSON config file of settings named like the environment variables
 * (`MRTQ_HTTP_PORT: 8470`). Unknown names and non-scalar values are errors, each named; the
 * environment overrides the file.
 */
export function readConfigFile(path: string): Record<string, string> {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`config file ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new Error(`config file ${path}: expected a mapping of settings`);
  const problems: string[] = [];
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (!SETTING_NAMES.includes(key)) problems.push(`${key}: unknown setting`);
    else if (!['string', 'number', 'boolean'].includes(typeof value))
      problems.push(`${key}: expected a single value`);
    else settings[key] = String(value);
  }
  if (problems.length > 0) throw new Error(`config file ${path}:\n  ${problems.join('\n  ')}`);
  return settings;
}
