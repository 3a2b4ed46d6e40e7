/**
 * The queue tree (DESIGN.md §2, paths exactly as the seeds and Merritt's mrt-zk write them).
 * Every path the queue touches is built here.
 */

export const BATCHES = '/batches';
export const BATCH_UUIDS = '/batch-uuids';
export const JOBS = '/jobs';
export const JOB_STATES = '/jobs/states';
export const LOCKS = '/locks';
export const QUEUE_LOCKS = '/locks/queue';
export const COLLECTION_LOCKS = '/locks/collections';
export const ACCESS = '/access';

export const BATCH_PREFIX = 'bid';
export const JOB_PREFIX = 'jid';
export const ACCESS_PREFIX = 'qid';

/** The folders under `/batches/BID/states` a job ref can sit in. */
export const BATCH_FOLDERS = [
  'batch-processing',
  'batch-completed',
  'batch-failed',
  'batch-deleted',
] as const;
export type BatchFolder = (typeof BATCH_FOLDERS)[number];

/** Queues an operator can pause (`/locks/queue/<name>`). */
export const QUEUE_NAMES = ['ingest', 'accessSmall', 'accessLarge'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export const batchPath = (bid: string): string => `${BATCHES}/${bid}`;
export const batchChild = (bid: string, key: BatchKey): string => `${BATCHES}/${bid}/${key}`;
export const batchFolderPath = (bid: string, folder: BatchFolder): string =>
  `${BATCHES}/${bid}/states/${folder}`;
export const batchRef = (bid: string, folder: BatchFolder, jid: string): string =>
  `${batchFolderPath(bid, folder)}/${jid}`;
export const batchUuidPath = (uuid: string): string => `${BATCH_UUIDS}/${uuid}`;

export const jobPath = (jid: string): string => `${JOBS}/${jid}`;
export const jobChild = (jid: string, key: JobKey): string => `${JOBS}/${jid}/${key}`;
/** `/jobs/states/<lowercase state>` */
export const jobStateFolder = (state: string): string => `${JOB_STATES}/${state.toLowerCase()}`;
/** `/jobs/states/<state>/PP-jidN`: two-digit priority so children sort into priority order. */
export const jobRef = (state: string, priority: number, jid: string): string =>
  `${jobStateFolder(state)}/${refName(priority, jid)}`;

/** `/access/<small|large>` and a request in it, `/access/<queue>/qidN` (no priority, no state index). */
export const accessQueuePath = (queue: string): string => `${ACCESS}/${queue}`;
export const accessPath = (queue: string, qid: string): string => `${ACCESS}/${queue}/${qid}`;

export const queueLockPath = (queue: QueueName): string => `${QUEUE_LOCKS}/${queue}`;
export const collectionLockPath = (mnemonic: string): string => `${COLLECTION_LOCKS}/${sanitizeId(mnemonic)}`;
export const storageLockPath = (ark: string): string => `${LOCKS}/storage/${sanitizeId(ark)}`;
export const inventoryLockPath = (ark: string): string => `${LOCKS}/inventory/${sanitizeId(ark)}`;
export const localIdLockPath = (localId: string): string => `${LOCKS}/localid/${sanitizeId(localId)}`;

export type BatchKey = 'submission' | 'status' | 'status-report' | 'states' | 'lock';
export type JobKey =
  | 'bid'
  | 'configuration'
  | 'status'
  | 'priority'
  | 'space_needed'
  | 'identifiers'
  | 'metadata'
  | 'store'
  | 'inventory'
  | 'lock';

/** `:` and `/` in identifiers (arks, local ids) become `_`, as Merritt writes them. */
export function sanitizeId(id: string): string {
  return id.replace(/[:/]/g, '_');
}

/**
 * Priorities live in ref names as two digits (00-99); lower runs first. Every write clamps:
 * Merritt's readers take the job id as the ref name minus its first three characters, so a
 * `100-jid…` ref would never be picked up by them.
 */
export function clampPriority(priority: number): number {
  if (!Number.isFinite(priority)) return 5;
  return Math.min(99, Math.max(0, Math.trunc(priority)));
}

export function refName(priority: number, jid: string): string {
  return `${String(clampPriority(priority)).padStart(2, '0')}-${jid}`;
}

/** A ref as written: `05-jid…`, or by another tool with any integer prefix (`100-jid…`, `-1-jid…`, `5-jid…`). */
const REF_NAME = /^(-?\d+)-(jid\d+)$/;
/** A ref as this engine writes it (and the order plain string sorting gives). */
const TWO_DIGIT_REF = /^\d{2}-jid/;

/**
 * Splits a ref name into its priority (as written, unclamped) and jid; undefined for names that
 * are not refs. Odd prefixes are accepted so that a job another tool filed under `100-` or `-1-`
 * is still taken, listed and moved (its next ref is written clamped).
 */
export function parseRefName(name: string): { priority: number; jid: string } | undefined {
  const match = REF_NAME.exec(name);
  if (!match) return undefined;
  return { priority: Number(match[1]), jid: match[2] as string };
}

/**
 * Where a ref name sorts: by clamped priority, then jid (`100-jid1` with `99-jid1`, `-1-jid1`
 * with `00-jid1`); names that are not refs last.
 */
export function refOrderKey(name: string): string {
  const parsed = parseRefName(name);
  return parsed ? refName(parsed.priority, parsed.jid) : `~${name}`;
}

/** The rank of a ref in acquisition order: its clamped priority (`05-`). */
export const refRank = (name: string): string => refOrderKey(name).slice(0, 3);

/**
 * Ref names in acquisition order (see refOrderKey). A folder of refs this engine wrote sorts as
 * plain strings; only a folder holding odd names pays for the keyed sort.
 */
export function sortRefs(names: readonly string[]): string[] {
  if (names.every((name) => TWO_DIGIT_REF.test(name))) return [...names].sort();
  return names
    .map((name) => ({ name, key: refOrderKey(name) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name }) => name);
}

/** True for a node name that is a job id (`jid` + digits). */
export const isJobId = (name: string): boolean => /^jid\d+$/.test(name);
/** True for a node name that is a batch id (`bid` + digits). */
export const isBatchId = (name: string): boolean => /^bid\d+$/.test(name);
