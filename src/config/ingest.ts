import { resolve } from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_LOCK_WAIT_MS,
  DEFAULT_MAIL_SETTINGS,
  parseAdminList,
  type IngestSettings,
  type MailSettings,
  type MerrittHandOffSettings,
  type ServiceEndpoint,
} from './ingest-settings.js';
import { packagePath } from '../package-root.js';
import {
  ConfigError,
  flag,
  fraction,
  httpUrl,
  oneOf,
  path,
  pathList,
  setting,
  wholeNumber,
} from './schema.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const DAY_MS = 86_400_000;

/** A local service unless an http(s) URL names one (kept as written). */
const endpoint = setting(
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url): ServiceEndpoint => ({ kind: 'http', url }))
    .default({ kind: 'local' }),
);

/**
 * The ingest steps' settings, by environment variable. Defaults that depend on the data directory
 * (file roots, work root) are left unset here and filled in by {@link ingestSettingsFrom}.
 */
export const ingestSettingsShape = {
  MRTQ_DEPLOYMENT: setting(
    oneOf(['standalone', 'merritt'], 'must be "standalone" or "merritt"').default('standalone'),
  ),
  MRTQ_FILE_ROOTS: setting(pathList().optional()),
  MRTQ_WORK_ROOT: setting(path().optional()),
  MRTQ_PROFILES_DIR: setting(path().optional()),
  MRTQ_FETCH_TIMEOUT_MS: setting(wholeNumber(1).default(30_000)),
  MRTQ_FETCH_RETRIES: setting(wholeNumber(0).default(3)),
  MRTQ_FETCH_RETRY_BASE_MS: setting(wholeNumber(1).default(500)),
  MRTQ_MAX_MANIFEST_BYTES: setting(wholeNumber(1).default(16 * MiB)),
  MRTQ_MAX_FILE_BYTES: setting(wholeNumber(1).default(50 * GiB)),
  MRTQ_FETCH_CONCURRENCY: setting(wholeNumber(1).default(8)),
  MRTQ_STORE_SYNC: setting(flag().default(true)),
  MRTQ_CONTAINER_MAX_ENTRIES: setting(wholeNumber(1).default(100_000)),
  MRTQ_CONTAINER_MAX_BYTES: setting(wholeNumber(1).default(50 * GiB)),
  MRTQ_CONTAINER_MAX_ENTRY_BYTES: setting(wholeNumber(1).default(20 * GiB)),
  MRTQ_CONTAINER_MAX_RATIO: setting(wholeNumber(1).default(200)),
  MRTQ_MAX_USED_FRACTION: setting(fraction().default(0.7)),
  MRTQ_MAX_OBJECT_BYTES: setting(wholeNumber(1).optional()),
  MRTQ_SPACE_WAIT_LIMIT_MS: setting(wholeNumber(1).default(DAY_MS)),
  MRTQ_STORAGE_LOCK_WAIT_MS: setting(wholeNumber(0).default(DEFAULT_LOCK_WAIT_MS.storage)),
  MRTQ_INVENTORY_LOCK_WAIT_MS: setting(wholeNumber(0).default(DEFAULT_LOCK_WAIT_MS.inventory)),
  MRTQ_LARGE_JOB_BYTES: setting(wholeNumber(1).default(GiB)),
  MRTQ_LARGE_JOB_PRIORITY: setting(wholeNumber(0, 99).default(10)),
  MRTQ_MINTER_URL: endpoint,
  MRTQ_STORAGE_URL: endpoint,
  MRTQ_INVENTORY_URL: endpoint,
  MRTQ_EZID_CREDENTIALS: setting(
    z.string().includes(':', { error: 'must be "user:password" (it has no ":")' }).optional(),
  ),
  MRTQ_EZID_TARGET_URL: setting(httpUrl().optional()),
  MRTQ_SMTP_HOST: setting(z.string().optional()),
  MRTQ_SMTP_PORT: setting(wholeNumber(1, 65_535).default(25)),
  MRTQ_SMTP_FROM: setting(z.string().default('merritt-ingest@localhost')),
  MRTQ_SMTP_SECURE: setting(flag().default(false)),
  MRTQ_PUBLIC_URL: setting(httpUrl().optional()),
  MRTQ_STORAGE_SERVICE: setting(httpUrl().optional()),
  MRTQ_STORAGE_NODE: setting(wholeNumber(0).optional()),
  MRTQ_MAIL_ENV: setting(oneOf(['dev', 'stg'], 'must be empty, "dev" or "stg"').optional()),
  MRTQ_MAIL_ADMIN: setting(z.string().optional()),
  MRTQ_MAIL_REPLY_TO: setting(z.string().optional()),
  MRTQ_MAIL_PURL: setting(z.string().default(DEFAULT_MAIL_SETTINGS.purl)),
};

const ingestObject = z.object(ingestSettingsShape);
/** The ingest settings as parsed, before the data directory's defaults are applied. */
export type IngestValues = z.output<typeof ingestObject>;

/** Rules between settings: a Merritt deployment needs the URL Merritt's storage service fetches from. */
export function checkIngestSettings(values: IngestValues, ctx: z.RefinementCtx): void {
  if (values.MRTQ_DEPLOYMENT === 'merritt' && !values.MRTQ_PUBLIC_URL)
    ctx.addIssue({
      code: 'custom',
      path: ['MRTQ_PUBLIC_URL'],
      message:
        "must be set when MRTQ_DEPLOYMENT=merritt: the base URL of this engine's HTTP API as " +
        "Merritt's storage service reaches it (e.g. http://ingest-1.example.org:8470)",
    });
}

/** @deprecated Use {@link ConfigError}: every configuration module throws it. */
export const IngestConfigError = ConfigError;
/** @deprecated Use {@link ConfigError}. */
export type IngestConfigError = ConfigError;

function merrittHandOff(v: IngestValues): MerrittHandOffSettings {
  return {
    ...(v.MRTQ_PUBLIC_URL ? { publicUrl: v.MRTQ_PUBLIC_URL } : {}),
    ...(v.MRTQ_STORAGE_SERVICE ? { storageService: v.MRTQ_STORAGE_SERVICE } : {}),
    ...(v.MRTQ_STORAGE_NODE !== undefined ? { storageNode: v.MRTQ_STORAGE_NODE } : {}),
  };
}

/** Merritt's mail settings (merritt-protocols.md §4): instance, Bcc, Reply-To, PURL base. */
function mailSettings(v: IngestValues): MailSettings {
  return {
    env: v.MRTQ_MAIL_ENV ?? '',
    admin: parseAdminList(v.MRTQ_MAIL_ADMIN),
    ...(v.MRTQ_MAIL_REPLY_TO ? { replyTo: v.MRTQ_MAIL_REPLY_TO } : {}),
    purl: v.MRTQ_MAIL_PURL,
  };
}

/**
 * The ingest steps' settings from parsed values, with embedded defaults under `dataDir`: local
 * minter, storage and inventory, reports to an outbox, `file://` payloads only from
 * `<dataDir>/incoming`.
 */
export function ingestSettingsFrom(v: IngestValues, dataDir: string): IngestSettings {
  const { MRTQ_EZID_CREDENTIALS: credentials, MRTQ_EZID_TARGET_URL: targetUrl } = v;
  return {
    deployment: v.MRTQ_DEPLOYMENT,
    fetch: {
      roots: v.MRTQ_FILE_ROOTS ?? [resolve(dataDir, 'incoming')],
      timeoutMs: v.MRTQ_FETCH_TIMEOUT_MS,
      retries: v.MRTQ_FETCH_RETRIES,
      retryBaseMs: v.MRTQ_FETCH_RETRY_BASE_MS,
      maxManifestBytes: v.MRTQ_MAX_MANIFEST_BYTES,
      maxFileBytes: v.MRTQ_MAX_FILE_BYTES,
      concurrency: v.MRTQ_FETCH_CONCURRENCY,
      flushBehind: v.MRTQ_STORE_SYNC,
    },
    storeSync: v.MRTQ_STORE_SYNC,
    containers: {
      maxEntries: v.MRTQ_CONTAINER_MAX_ENTRIES,
      maxTotalBytes: v.MRTQ_CONTAINER_MAX_BYTES,
      maxEntryBytes: v.MRTQ_CONTAINER_MAX_ENTRY_BYTES,
      maxRatio: v.MRTQ_CONTAINER_MAX_RATIO,
    },
    workRoot: v.MRTQ_WORK_ROOT ?? resolve(dataDir, 'work'),
    maxUsedFraction: v.MRTQ_MAX_USED_FRACTION,
    ...(v.MRTQ_MAX_OBJECT_BYTES !== undefined ? { maxObjectBytes: v.MRTQ_MAX_OBJECT_BYTES } : {}),
    spaceWaitLimitMs: v.MRTQ_SPACE_WAIT_LIMIT_MS,
    storageLockWaitMs: v.MRTQ_STORAGE_LOCK_WAIT_MS,
    inventoryLockWaitMs: v.MRTQ_INVENTORY_LOCK_WAIT_MS,
    largeJobBytes: v.MRTQ_LARGE_JOB_BYTES,
    largeJobPriority: v.MRTQ_LARGE_JOB_PRIORITY,
    profilesDir: v.MRTQ_PROFILES_DIR ?? packagePath('profiles'),
    dataDir,
    minter: v.MRTQ_MINTER_URL,
    ...(credentials || targetUrl
      ? { ezid: { ...(credentials ? { credentials } : {}), ...(targetUrl ? { targetUrl } : {}) } }
      : {}),
    storage: v.MRTQ_STORAGE_URL,
    inventory: v.MRTQ_INVENTORY_URL,
    ...(v.MRTQ_SMTP_HOST
      ? {
          smtp: {
            host: v.MRTQ_SMTP_HOST,
            port: v.MRTQ_SMTP_PORT,
            from: v.MRTQ_SMTP_FROM,
            secure: v.MRTQ_SMTP_SECURE,
          },
        }
      : {}),
    // MRTQ_PUBLIC_URL standalone too: the embedded store then reads hand-offs a Merritt-mode run of
    // this engine wrote under it straight from the work root (src/steps/job/store.ts).
    ...(v.MRTQ_DEPLOYMENT === 'merritt' || v.MRTQ_PUBLIC_URL ? { merritt: merrittHandOff(v) } : {}),
    mail: mailSettings(v),
  };
}

/**
 * The ingest steps' settings from `env` alone (loadConfig reads them together with the rest);
 * throws a {@link ConfigError} naming every invalid setting.
 */
export function loadIngestSettings(env: NodeJS.ProcessEnv, dataDir: string): IngestSettings {
  const parsed = ingestObject.superRefine(checkIngestSettings).safeParse(env);
  if (!parsed.success) throw ConfigError.of(parsed.error, env);
  return ingestSettingsFrom(parsed.data, dataDir);
}
