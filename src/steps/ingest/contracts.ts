/**
 * Contracts shared by the ingest steps (issue #6): the settings they are built from and the
 * working-directory layout the download side writes and the processing side reads.
 *
 * Working directory of a job: `<workRoot>/<batch id>/<job id>/`
 * - `producer/`       the depositor's files, as downloaded (containers unpacked here)
 * - `system/`         files the engine writes (ERC, Dublin Core, storage manifest)
 * - `download.json`   a {@link DownloadRecord}, written last by the download step
 */

export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha512';

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

export interface IngestSettings {
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
  /** Estimating raises the priority number of jobs above this many bytes to `largeJobPriority`. */
  largeJobBytes: number;
  largeJobPriority: number;
  /** Directory of profile files (`<name>.yaml|.yml|.json`). */
  profilesDir: string;
  /** Data directory of the local storage, inventory and minter defaults. */
  dataDir: string;
  minter: ServiceEndpoint;
  storage: ServiceEndpoint;
  inventory: ServiceEndpoint;
  /** Batch reports by SMTP when set, else written to `<dataDir>/outbox`. */
  smtp?: { host: string; port: number; from: string; secure?: boolean };
}

/** A depositor's profile (`<profilesDir>/<name>.yaml`). */
export interface Profile {
  name: string;
  /** Collection mnemonic: what `/locks/collections/<mnemonic>` holds apply to. */
  collection: string;
  /** Default job priority (two digits, lower runs first). */
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
