/**
 * The settings of the ingest steps, as the configuration reads them (src/config/ingest.ts) and
 * the steps take them: the configuration's own types, so that it imports nothing above it.
 */

/** Where steps fetch from and how much they accept (`file://` only under `roots`). */
export interface FetchSettings {
  /** Directories `file://` URLs may point into (resolved, symlinks followed); anything else is refused. */
  roots: string[];
  timeoutMs: number;
  /** Attempts per file beyond the first, with exponential backoff from `retryBaseMs`. */
  retries: number;
  retryBaseMs: number;
  maxManifestBytes: number;
  maxFileBytes: number;
  /** HEAD/GET requests in flight per job. */
  concurrency: number;
  /**
   * Push a download's bytes to disk while it streams (with `storeSync`: the store's fsync then finds
   * a big file written). Default true.
   */
  flushBehind?: boolean;
}

export interface ContainerLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxEntryBytes: number;
  /** Uncompressed / compressed size above which an entry is refused as a bomb. */
  maxRatio: number;
}

/** An external service: the local default under the data directory, or an HTTP endpoint. */
export type ServiceEndpoint = { kind: 'local' } | { kind: 'http'; url: string; timeoutMs?: number };

/**
 * How the engine shares the tree (merritt-protocols.md, "The big picture"). `standalone`: it
 * serves every state, its embedded storage and inventory take Storing and Recording. `merritt`:
 * it serves ingest's states and leaves Storing to Merritt's storage service and Recording to its
 * inventory service, which read the hand-off nodes it writes.
 */
export type DeploymentMode = 'standalone' | 'merritt';

/**
 * Where Merritt's services reach what this engine hands them in a Merritt deployment
 * (merritt-protocols.md §1, §2; docs/deploy.md, "Merritt mode").
 */
export interface MerrittHandOffSettings {
  /**
   * `MRTQ_PUBLIC_URL`: this engine's HTTP API as Merritt's storage service reaches it; the store
   * node's manifest and its files are served under `{publicUrl}/ingestqueue/…`.
   */
  publicUrl?: string;
  /** `MRTQ_STORAGE_SERVICE`: the storage access URL when the profile names no `StorageService`. */
  storageService?: string;
  /** `MRTQ_STORAGE_NODE`: the storage node when the profile names no `StorageNode`. */
  storageNode?: number;
}

export interface IngestSettings {
  /** `MRTQ_DEPLOYMENT`, default standalone. */
  deployment: DeploymentMode;
  /**
   * The hand-off to Merritt's services: in a Merritt deployment; standalone only when
   * MRTQ_PUBLIC_URL is set (its `publicUrl` then names this engine's own hand-off URLs).
   */
  merritt?: MerrittHandOffSettings;
  fetch: FetchSettings;
  containers: ContainerLimits;
  /** Root of the jobs' working directories. */
  workRoot: string;
  /** Provisioning holds jobs while the working storage is fuller than this (0..1, default 0.7). */
  maxUsedFraction: number;
  /**
   * The largest object (space needed, bytes) provisioning admits; a larger one fails there.
   * Default: `maxUsedFraction` of what the working file system can hold, the most the rule above
   * could ever admit.
   */
  maxObjectBytes?: number;
  /** How long a job may wait in provisioning for space before it fails (ms). */
  spaceWaitLimitMs: number;
  /** How long storing waits for `/locks/storage/<ark>` held elsewhere before it fails (ms; default 1 h). */
  storageLockWaitMs?: number;
  /** How long recording waits for `/locks/inventory/<ark>` held elsewhere (ms; default 900 s, Merritt's). */
  inventoryLockWaitMs?: number;
  /** Estimating raises the priority number of jobs above this many bytes to `largeJobPriority`. */
  largeJobBytes: number;
  largeJobPriority: number;
  /** Directory of profile files (`<name>.yaml|.yml|.json`). */
  profilesDir: string;
  /** Data directory of the local storage, inventory and minter defaults. */
  dataDir: string;
  /**
   * `MRTQ_STORE_SYNC` (default true): the embedded store makes a version durable (fsync, or one
   * syncfs for many files) before it counts as stored. False: the kernel writes it when it will,
   * and a power failure may lose the last versions stored (for a file system that is itself
   * replicated, or a store that is a staging area).
   */
  storeSync?: boolean;
  minter: ServiceEndpoint;
  /**
   * EZID clients (docs/ingest.md, "Minter and local ids"): `MRTQ_EZID_CREDENTIALS` (`user:password`,
   * Basic auth) and `MRTQ_EZID_TARGET_URL` (base of the `_target` sent to EZID).
   */
  ezid?: { credentials?: string; targetUrl?: string };
  storage: ServiceEndpoint;
  inventory: ServiceEndpoint;
  /** Batch reports by SMTP when set, else written to `<dataDir>/outbox`. */
  smtp?: { host: string; port: number; from: string; secure?: boolean };
  /** Merritt's mail settings (`MRTQ_MAIL_*`, merritt-protocols.md §4); absent: their defaults. */
  mail?: MailSettings;
}

/**
 * Settings of Merritt's e-mails (merritt-protocols.md §4) beyond the SMTP server: what Merritt
 * reads from `ingest-info` (`admin`, `mail-replyto`, `purl`) and the instance its subject names.
 */
export interface MailSettings {
  /**
   * `MRTQ_MAIL_ENV`: the instance the subject names, as Merritt derives it from its service name
   * ("Development" → `dev`, "Stage" → `stg`); empty for production (no bracket).
   */
  env: '' | 'dev' | 'stg';
  /** `MRTQ_MAIL_ADMIN` (`;`-separated, as `ingest-info.admin`): Bcc of every mail, To of warnings. */
  admin: string[];
  /** `MRTQ_MAIL_REPLY_TO` (`mail-replyto`). */
  replyTo?: string;
  /** `MRTQ_MAIL_PURL` (`ingest-info.purl`): the persistent URL of an object is this + its ark. */
  purl: string;
}

/** What a deployment without mail settings uses: production subjects, no Bcc, n2t.net. */
export const DEFAULT_MAIL_SETTINGS: MailSettings = { env: '', admin: [], purl: 'http://n2t.net/' };

/** `MRTQ_MAIL_ADMIN`: addresses separated by `;` (commas accepted too), blanks dropped. */
export function parseAdminList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(/[;,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * How long a step waits for an object lock by default: storing an hour (Merritt's storage
 * service waits without limit, but an engine worker stuck for ever helps nobody), recording
 * 900 s (Merritt's inventory service's limit). `MRTQ_STORAGE_LOCK_WAIT_MS`,
 * `MRTQ_INVENTORY_LOCK_WAIT_MS`.
 */
export const DEFAULT_LOCK_WAIT_MS: { storage: number; inventory: number } = {
  storage: 3_600_000,
  inventory: 900_000,
};
