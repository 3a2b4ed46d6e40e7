import type { BatchFolder } from '../../../machines/index.js';
/**
 * The queue tree (DESIGN.md §2, paths exactly as the seeds and Merritt's mrt-zk write them).
 * Every path the queue touches is built here.
 */

import { QueueError } from './errors.js';
import { Smallest } from './smallest.js';

export const BATCHES = '/batches';
export const BATCH_UUIDS = '/batch-uuids';
export const JOBS = '/jobs';
export const JOB_STATES = '/jobs/states';
export const LOCKS = '/locks';
export const QUEUE_LOCKS = '/locks/queue';
export const COLLECTION_LOCKS = '/locks/collections';
export const STORAGE_LOCKS = '/locks/storage';
export const INVENTORY_LOCKS = '/locks/inventory';
export const LOCAL_ID_LOCKS = '/locks/localid';
export const ACCESS = '/access';

export const BATCH_PREFIX = 'bid';
export const JOB_PREFIX = 'jid';
export const ACCESS_PREFIX = 'qid';

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

/*
 * Lock names, byte for byte as Merritt's mrt-zk makes them (merritt-protocols.md §8, "Locks";
 * `MerrittLocks.java`, `merritt_zk_locks.rb`), so this engine, Merritt's services and its admin
 * tool see one another's locks. One function per naming rule.
 */

/**
 * The name of an object lock (`/locks/storage/…`, `/locks/inventory/…`) for an ark: mrt-zk's
 * `ark.replaceAll(":?/", "_")`, a regular expression: each `/`, together with one `:` just before
 * it, becomes one `_` (`ark:/13030/m5abc` → `ark_13030_m5abc`, `a::/b` → `a:_b`); a `:` before
 * anything else stays.
 */
export function objectLockName(ark: string): string {
  return ark.replace(/:?\//g, '_');
}

/**
 * The name of a local-id lock as Merritt's ingest makes it (merritt-protocols.md §3,
 * `ProcessManager.getLocalIDLock`): `localid + "_" + owner`, then the object-lock rule
 * (`loc-1` owned by `ark:/13030/j2owner` → `loc-1_ark_13030_j2owner`). No owner reads as the empty
 * string, as Java's concatenation of an empty owner.
 */
export function localIdLockName(localId: string, owner: string | undefined): string {
  return objectLockName(`${localId}_${owner ?? ''}`);
}

/**
 * The name of a collection hold: the mnemonic itself, unchanged (mrt-zk joins it to the folder
 * as it is: `Paths.get("/locks/collections", mnemonic)`, Ruby `"#{LOCKS_COLLECTION}/#{mnemonic}"`),
 * and the engine compares the folder's child names with profiles' mnemonics. A mnemonic that is
 * not one node name (empty, `.`, `..`, or with a `/`, which Merritt would turn into a nested
 * node no consumer checks) is refused with BAD_REQUEST.
 */
export function collectionLockName(mnemonic: string): string {
  if (mnemonic === '' || mnemonic === '.' || mnemonic === '..' || mnemonic.includes('/')) {
    throw new QueueError(
      'BAD_REQUEST',
      `"${mnemonic}" is not a collection mnemonic: a hold is one node under ${COLLECTION_LOCKS}, so its name ` +
        'must be non-empty, not "." or "..", and without "/"',
      mnemonic,
    );
  }
  return mnemonic;
}

/** `/locks/collections/<mnemonic>`. */
export const collectionLockPath = (mnemonic: string): string =>
  `${COLLECTION_LOCKS}/${collectionLockName(mnemonic)}`;
/** `/locks/storage/<ark>` (objectLockName). */
export const storageLockPath = (ark: string): string => `${STORAGE_LOCKS}/${objectLockName(ark)}`;
/** `/locks/inventory/<ark>` (objectLockName). */
export const inventoryLockPath = (ark: string): string => `${INVENTORY_LOCKS}/${objectLockName(ark)}`;
/** `/locks/localid/<localid_owner>` (localIdLockName). */
export const localIdLockPath = (localId: string, owner: string | undefined): string =>
  `${LOCAL_ID_LOCKS}/${localIdLockName(localId, owner)}`;

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
  | 'attempts'
  | 'retry'
  | 'lock';

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
/** A ref as this engine writes it: plain string order is its acquisition order (refOrderKey is the name). */
const TWO_DIGIT_REF = /^\d{2}-jid\d+$/;

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

type KeyedRef = { name: string; key: string };
/** Whether a ref (its order key and name) comes after another in acquisition order. */
const refAfter = (aKey: string, aName: string, bKey: string, bName: string): boolean =>
  aKey > bKey || (aKey === bKey && aName > bName);
const keyedAfter = (a: KeyedRef, b: KeyedRef): boolean => refAfter(a.key, a.name, b.key, b.name);

/**
 * The first `count` ref names in acquisition order (as {@link sortRefs} orders them) among names
 * offered one at a time: for a folder walked a slice at a time, never held whole. A name that
 * sorts after the ones kept costs one key and one comparison.
 */
export class FirstRefs {
  private readonly heap: Smallest<KeyedRef>;
  /** Names offered. */
  size = 0;

  constructor(count: number) {
    this.heap = new Smallest(count, keyedAfter);
  }

  offer(name: string): void {
    this.size += 1;
    const key = TWO_DIGIT_REF.test(name) ? name : refOrderKey(name);
    const bound = this.heap.bound;
    // Compared before an entry is made: most names of a big folder are not kept.
    if (bound && !refAfter(bound.key, bound.name, key, name)) return;
    this.heap.offer({ name, key });
  }

  /** The names kept, in acquisition order. */
  take(): string[] {
    return this.heap.sorted().map((entry) => entry.name);
  }
}

/** True for a node name that is a job id (`jid` + digits). */
export const isJobId = (name: string): boolean => /^jid\d+$/.test(name);
/** True for a node name that is a batch id (`bid` + digits). */
export const isBatchId = (name: string): boolean => /^bid\d+$/.test(name);
