/**
 * Contracts shared by the ingest steps (issue #6): digests, ERC, profiles and the
 * working-directory layout the download side writes and the processing side reads. The settings
 * they are built from are the configuration's (src/config/ingest-settings.ts).
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
  /**
   * Its sha256 (hex) when `digest` is of another algorithm, and its MIME type: taken in the
   * download's one pass over the bytes, so processing does not read the file again. Absent in
   * records written before they were kept (processing then reads the file).
   */
  sha256?: string;
  mimeType?: string;
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
