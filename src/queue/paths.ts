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

/** Priorities live in ref names as two digits (00-99); lower runs first. */
export function clampPriority(priority: number): number {
  if (!Number.isFinite(priority)) return 5;
  return Math.min(99, Math.max(0, Math.trunc(priority)));
}

export function refName(priority: number, jid: string): string {
  return `${String(clampPriority(priority)).padStart(2, '0')}-${jid}`;
}

/** Splits `05-jid0000000001` into priority and jid; undefined for names that are not refs. */
export function parseRefName(name: string): { priority: number; jid: string } | undefined {
  const match = /^(\d{2})-(jid\d+)$/.exec(name);
  if (!match) return undefined;
  return { priority: Number(match[1]), jid: match[2] as string };
}

/** True for a node name that is a job id (`jid` + digits). */
export const isJobId = (name: string): boolean => /^jid\d+$/.test(name);
/** True for a node name that is a batch id (`bid` + digits). */
export const isBatchId = (name: string): boolean => /^bid\d+$/.test(name);
