import { resolve } from 'node:path';
import type {
  DeploymentMode,
  IngestSettings,
  MerrittHandOffSettings,
  ServiceEndpoint,
} from './steps/ingest/contracts.js';
import { DEFAULT_MAIL_SETTINGS, parseAdminList, type MailSettings } from './steps/ingest/mail-merritt.js';
import { DEFAULT_LOCK_WAIT_MS } from './steps/ingest/output-lock.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const DAY_MS = 86_400_000;

/** Collects every bad setting, so one start reports them all. */
class Problems {
  readonly list: string[] = [];
  int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min) {
      this.list.push(`${name} must be a whole number of at least ${min}, got "${raw}"`);
      return fallback;
    }
    return value;
  }
  fraction(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!(value > 0 && value <= 1)) {
      this.list.push(`${name} must be a number above 0 and at most 1, got "${raw}"`);
      return fallback;
    }
    return value;
  }
  deployment(env: NodeJS.ProcessEnv, name: string): DeploymentMode {
    const raw = (env[name] ?? '').trim().toLowerCase();
    if (raw === '' || raw === 'standalone') return 'standalone';
    if (raw === 'merritt') return 'merritt';
    this.list.push(`${name} must be "standalone" or "merritt", got "${env[name]}"`);
    return 'standalone';
  }
  url(env: NodeJS.ProcessEnv, name: string): string | undefined {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    if (!/^https?:\/\/[^/]/.test(raw) || !URL.canParse(raw)) {
      this.list.push(`${name} must be an http(s) URL, got "${raw}"`);
      return undefined;
    }
    return raw.replace(/\/+$/, '');
  }
  endpoint(env: NodeJS.ProcessEnv, name: string): ServiceEndpoint {
    const raw = env[name];
    if (!raw) return { kind: 'local' };
    if (!/^https?:\/\//.test(raw)) {
      this.list.push(`${name} must be an http(s) URL, got "${raw}"`);
      return { kind: 'local' };
    }
    return { kind: 'http', url: raw };
  }
}

/** EZID's Basic credentials (`user:password`) and `_target` base (docs/ingest.md, "Minter and local ids"). */
function ezidSettings(env: NodeJS.ProcessEnv, p: Problems): Pick<IngestSettings, 'ezid'> {
  const credentials = env.MRTQ_EZID_CREDENTIALS;
  const targetUrl = env.MRTQ_EZID_TARGET_URL;
  if (credentials && !credentials.includes(':'))
    p.list.push('MRTQ_EZID_CREDENTIALS must be "user:password", got no ":"');
  if (targetUrl && !/^https?:\/\//.test(targetUrl))
    p.list.push(`MRTQ_EZID_TARGET_URL must be an http(s) URL, got "${targetUrl}"`);
  if (!credentials && !targetUrl) return {};
  return { ezid: { ...(credentials ? { credentials } : {}), ...(targetUrl ? { targetUrl } : {}) } };
}

/** An error listing every invalid ingest setting by its variable name. */
export class IngestConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
    this.name = 'IngestConfigError';
  }
}

/** Merritt's storage service fetches the hand-off manifest from this engine: it needs its URL. */
function merrittHandOff(env: NodeJS.ProcessEnv, p: Problems): MerrittHandOffSettings {
  const publicUrl = p.url(env, 'MRTQ_PUBLIC_URL');
  if (!publicUrl && !env.MRTQ_PUBLIC_URL)
    p.list.push(
      "MRTQ_PUBLIC_URL must be set when MRTQ_DEPLOYMENT=merritt: the base URL of this engine's HTTP API as " +
        "Merritt's storage service reaches it (e.g. http://ingest-1.example.org:8470)",
    );
  const node = env.MRTQ_STORAGE_NODE ? p.int(env, 'MRTQ_STORAGE_NODE', 0, 0) : undefined;
  const storageService = p.url(env, 'MRTQ_STORAGE_SERVICE');
  return {
    ...(publicUrl ? { publicUrl } : {}),
    ...(storageService ? { storageService } : {}),
    ...(node !== undefined ? { storageNode: node } : {}),
  };
}

/** Merritt's mail settings (merritt-protocols.md §4): instance, Bcc, Reply-To, PURL base. */
function mailSettings(env: NodeJS.ProcessEnv, p: Problems): MailSettings {
  const raw = (env.MRTQ_MAIL_ENV ?? '').trim().toLowerCase();
  const instance = raw === 'dev' || raw === 'stg' || raw === '' ? raw : undefined;
  if (instance === undefined)
    p.list.push(`MRTQ_MAIL_ENV must be empty, "dev" or "stg", got "${env.MRTQ_MAIL_ENV}"`);
  const replyTo = env.MRTQ_MAIL_REPLY_TO?.trim();
  return {
    env: instance ?? '',
    admin: parseAdminList(env.MRTQ_MAIL_ADMIN),
    ...(replyTo ? { replyTo } : {}),
    purl: env.MRTQ_MAIL_PURL?.trim() || DEFAULT_MAIL_SETTINGS.purl,
  };
}

/**
 * The ingest steps' settings from the environment, with embedded defaults under `dataDir`:
 * local minter, storage and inventory, reports to an outbox, `file://` payloads only from
 * `<dataDir>/incoming`. Called by loadConfig (the only reader of process.env).
 */
export function loadIngestSettings(env: NodeJS.ProcessEnv, dataDir: string): IngestSettings {
  const p = new Problems();
  const roots = (env.MRTQ_FILE_ROOTS ?? resolve(dataDir, 'incoming'))
    .split(':')
    .filter(Boolean)
    .map((r) => resolve(r));
  const smtpHost = env.MRTQ_SMTP_HOST;
  const settings: IngestSettings = {
    deployment: p.deployment(env, 'MRTQ_DEPLOYMENT'),
    fetch: {
      roots,
      timeoutMs: p.int(env, 'MRTQ_FETCH_TIMEOUT_MS', 30_000, 1),
      retries: p.int(env, 'MRTQ_FETCH_RETRIES', 3),
      retryBaseMs: p.int(env, 'MRTQ_FETCH_RETRY_BASE_MS', 500, 1),
      maxManifestBytes: p.int(env, 'MRTQ_MAX_MANIFEST_BYTES', 16 * MiB, 1),
      maxFileBytes: p.int(env, 'MRTQ_MAX_FILE_BYTES', 50 * GiB, 1),
      concurrency: p.int(env, 'MRTQ_FETCH_CONCURRENCY', 4, 1),
    },
    containers: {
      maxEntries: p.int(env, 'MRTQ_CONTAINER_MAX_ENTRIES', 100_000, 1),
      maxTotalBytes: p.int(env, 'MRTQ_CONTAINER_MAX_BYTES', 50 * GiB, 1),
      maxEntryBytes: p.int(env, 'MRTQ_CONTAINER_MAX_ENTRY_BYTES', 20 * GiB, 1),
      maxRatio: p.int(env, 'MRTQ_CONTAINER_MAX_RATIO', 200, 1),
    },
    workRoot: resolve(env.MRTQ_WORK_ROOT ?? resolve(dataDir, 'work')),
    maxUsedFraction: p.fraction(env, 'MRTQ_MAX_USED_FRACTION', 0.7),
    ...(env.MRTQ_MAX_OBJECT_BYTES ? { maxObjectBytes: p.int(env, 'MRTQ_MAX_OBJECT_BYTES', 0, 1) } : {}),
    spaceWaitLimitMs: p.int(env, 'MRTQ_SPACE_WAIT_LIMIT_MS', DAY_MS, 1),
    storageLockWaitMs: p.int(env, 'MRTQ_STORAGE_LOCK_WAIT_MS', DEFAULT_LOCK_WAIT_MS.storage),
    inventoryLockWaitMs: p.int(env, 'MRTQ_INVENTORY_LOCK_WAIT_MS', DEFAULT_LOCK_WAIT_MS.inventory),
    largeJobBytes: p.int(env, 'MRTQ_LARGE_JOB_BYTES', GiB, 1),
    largeJobPriority: p.int(env, 'MRTQ_LARGE_JOB_PRIORITY', 10),
    profilesDir: resolve(env.MRTQ_PROFILES_DIR ?? resolve(import.meta.dirname, '..', 'profiles')),
    dataDir,
    minter: p.endpoint(env, 'MRTQ_MINTER_URL'),
    ...ezidSettings(env, p),
    storage: p.endpoint(env, 'MRTQ_STORAGE_URL'),
    inventory: p.endpoint(env, 'MRTQ_INVENTORY_URL'),
  };
  if (smtpHost) {
    settings.smtp = {
      host: smtpHost,
      port: p.int(env, 'MRTQ_SMTP_PORT', 25, 1),
      from: env.MRTQ_SMTP_FROM ?? 'merritt-ingest@localhost',
      secure: env.MRTQ_SMTP_SECURE === 'true',
    };
  }
  // MRTQ_PUBLIC_URL standalone too: the embedded store then reads hand-offs a Merritt-mode run of
  // this engine wrote under it straight from the work root (src/steps/ingest/store.ts).
  if (settings.deployment === 'merritt' || env.MRTQ_PUBLIC_URL) settings.merritt = merrittHandOff(env, p);
  settings.mail = mailSettings(env, p);
  if (settings.largeJobPriority > 99) p.list.push('MRTQ_LARGE_JOB_PRIORITY must be at most 99');
  if (p.list.length > 0) throw new IngestConfigError(p.list);
  return settings;
}
