/**
 * Contracts shared by the ingest steps (issue #6): the settings they are built from and the
 * working-directory layout the download side writes and the processing side reads.
 *
 * Working directory of a job: `<workRoot>/<batch id>/<job id>/`
 * - `producer/`       the depositor's files, as downloaded (containers unpacked here)
 * - `system/`         files the engine writes (ERC, Dublin Core, storage manifest)
 * - `download.json`   a {@link DownloadRecord}, written last by the download step
 */

/** Merritt's `MessageDigestType` names (mrt-core), md2 aside: Node cannot compute it. */
export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512' | 'crc32' | 'adler32';

export interface Digest {
  algorithm: DigestAlgorithm;
  /** Lowercase hex. */
  value: string;
}

/** ERC kernel elements (who, what, when, where) of an object. */
export interface Erc {
  who?: string;
  what?: string;
  when?: string;
  where?: string;
}

/** One downloaded file of an object. */
export interface DownloadedFile {
  /** Path relative to the working directory, e.g. `producer/images/a.tif`. */
  path: string;
  size: number;
  /** The digest verified against the depositor's (or computed, sha256, when none was given). */
  digest: Digest;
  /** Where it came from (for a container: the container's URL). */
  sourceUrl: string;
}

/** What the download step leaves for processing, recording and notify. */
export interface DownloadRecord {
  files: DownloadedFile[];
  /** Identifiers and ERC the depositor gave for this object (manifest or submission). */
  object: {
    primaryIdentifier?: string;
    localIdentifier?: string;
    erc: Erc;
  };
}

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
 * What a Merritt profile (a Java-Properties file, merritt-protocols.md §5) says beyond the
 * fields every profile has. Each is absent when the profile does not set it; a YAML profile may
 * set them under the same names.
 */
export interface MerrittProfileKeys {
  /** `ProfileDescription`. */
  description?: string;
  /** `Identifier-scheme`: `ARK` (DOI is refused when minting). */
  identifierScheme?: string;
  /** `Identifier-namespace`, e.g. `13030`. */
  identifierNamespace?: string;
  /** `Collection.N` in N order: collection arks; the first is the EZID group. */
  collections?: string[];
  /** `Type`, e.g. `MRT-curatorial`. */
  objectType?: string;
  /** `Role`: `MRT-content` or `MRT-class`. */
  role?: string;
  /** `Aggregate`: `MRT-collection`, `MRT-owner`, `MRT-service-level-agreement`, or absent. */
  aggregate?: string;
  /** `Owner`: the owner ark local ids are scoped by. */
  owner?: string;
  /** `Context`: sent to EZID as `mrt.creator`. */
  context?: string;
  /** `EZID_co-owner`: sent to EZID as `_owner`. */
  ezidCoOwner?: string;
  /** `ObjectMinterURL`: the EZID shoulder URL, e.g. `https://ezid.example/shoulder/ark:/99999/fk4`. */
  minterUrl?: string;
  /** `StorageService`: the storage service's base URL. */
  storageService?: string;
  /** `StorageNode`: the storage node number. */
  storageNode?: number;
  /** `NotificationFormat`: anvl, json, xml… (the callback body and the queued mail). */
  notificationFormat?: string;
  /** `NotificationType` (any case in the file): `verbose` mails, or `additional` (a CSV attached). */
  notificationType?: 'verbose' | 'additional';
  /**
   * `NotificationSuppression` (any case in the file): `full`, no mail at all (neither the
   * "Submission Queued" mail nor the batch report); `partial`, no "Submission Queued" mail
   * (Merritt's queue/HandlerNotification checks both, batchReport/HandlerNotification only `full`).
   */
  notificationSuppression?: 'full' | 'partial';
  /** `SuppressDublinCoreLocalID: true`: `dc.identifier` is not taken as a local id. */
  suppressDublinCoreLocalId?: boolean;
}

/** A depositor's profile (`<profilesDir>/<name>.yaml`, or a Merritt Java-Properties profile). */
export interface Profile extends MerrittProfileKeys {
  name: string;
  /**
   * Collection mnemonic: what `/locks/collections/<mnemonic>` holds apply to. A Merritt profile's
   * is its profile name (`merritt_demo_content`), as Merritt's consumers check the hold named by
   * the job's profile and its admin tool holds `<mnemonic>_content` (docs/ingest.md, Profiles).
   */
  collection: string;
  /** Default job priority, 0..99 (two digits in refs, lower runs first). */
  priority: number;
  /** Addresses the batch report goes to. */
  notifications: string[];
  /** Called for every job with its result (notify step). */
  callbackUrl?: string;
  responseType: 'json' | 'xml' | 'turtle';
}

/** The working directory of a job. */
export function workDirOf(workRoot: string, batchId: string, jobId: string): string {
  return `${workRoot}/${batchId}/${jobId}`;
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
