import { distinctUntilChanged, map, type Observable } from 'rxjs';
import {
  BATCHES,
  COLLECTION_LOCKS,
  batchChild,
  batchFolderPath,
  isBatchId,
  jobStateFolder,
  queueLockPath,
  type QueueName,
} from '../queue/tree/paths.js';
import { readFirstRefs, type FirstRefsRead } from '../queue/jobs/refs.js';
import type { WatchCallback, ZkClient } from '../zk/index.js';
import { BUSY_FOLDER_SETTLE_MS, children$, folder$, settleDelayFor } from './children.js';
import { data$, exists$, type NodeValue } from './data.js';

const sameList = (a: string[], b: string[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * How many of a job state folder's refs a read hands to its consumer: the first in acquisition
 * order, enough for the consumer to work through until the folder is read again (its re-read
 * delay, {@link settleDelayFor}) at 2,500 jobs a second (one engine runs 750-950 here): 20,000,
 * and up to 50,000 for a folder big enough to wait 20 s between reads (400,000 waiting and more;
 * 20,000 ran out at 1,000 jobs a second). Not more for smaller folders: the refs kept are sorted
 * in one turn (50,000 took about 50 ms at 100,000 waiting).
 */
export function candidatesPerRead(size: number): number {
  const lastFor = Math.ceil((settleDelayFor(size) / 1000) * CANDIDATE_JOBS_PER_S);
  return Math.min(50_000, Math.max(20_000, lastFor));
}

const CANDIDATE_JOBS_PER_S = 2_500;

export interface JobWorkOptions {
  /** The consumer's demand: the folder is not re-read while it wants nothing. */
  demand?: Observable<boolean>;
  /**
   * Least wait after a change before a re-read (default {@link BUSY_FOLDER_SETTLE_MS}); an observer
   * that must see each state a job passes through (the transition feed) passes 0.
   */
  floorMs?: number;
  /** Refs kept beyond the first ones (see readFirstRefs): the intake's fair shares. */
  keep?: (name: string) => boolean;
  /**
   * A change after a quiet spell is read at once (see WatchedOptions.quietAtOnce): the intake's
   * folder, where new work comes from outside this process (its other folders are mostly fed by
   * its own hand-overs).
   */
  quietAtOnce?: boolean;
}

/** One read of a job state folder: its first refs, and when ZooKeeper answered. */
export type JobListing = Pick<FirstRefsRead, 'refs' | 'readAt'>;

/**
 * Refs waiting in a job state folder (`PP-jid` names, the first {@link candidatesPerRead} in
 * acquisition order), each time the folder changes: "work appeared in state S". Every read is
 * emitted, the same refs as the last included: a later read naming a job again says it is there
 * as of a later time (it came back after a consumer saw it move on; see `Consumer.offer`).
 */
export function jobWork$(
  zk: ZkClient,
  state: string,
  { demand, floorMs = BUSY_FOLDER_SETTLE_MS, keep, quietAtOnce }: JobWorkOptions = {},
): Observable<JobListing> {
  const path = jobStateFolder(state);
  const read = (watch: WatchCallback) => readFirstRefs(zk, path, candidatesPerRead, watch, keep);
  const options = { demand, floorMs, quietAtOnce };
  const missing: FirstRefsRead = { refs: [], size: 0, readAt: 0 };
  return folder$(zk, path, read, missing, (found) => found.size, options);
}

/** The batch ids under /batches, each time one is created or removed. */
export function batchIds$(zk: ZkClient): Observable<string[]> {
  return children$(zk, BATCHES).pipe(
    map((names) => names.filter(isBatchId).sort()),
    distinctUntilChanged(sameList),
  );
}

/** True whenever batch B's `batch-processing` folder is empty (missing counts as empty), false otherwise. */
export function batchProcessingEmpty$(zk: ZkClient, bid: string): Observable<boolean> {
  const path = batchFolderPath(bid, 'batch-processing');
  // Only the count matters: the names (50,000 in a big batch) are never decoded.
  const count = async (watch: WatchCallback) => (await zk.getChildNames(path, watch)).count;
  // No floor: a batch's end is seen at once (its completion latency, milliseconds, is a target).
  return folder$(zk, path, count, 0, (size) => size).pipe(
    map((size) => size === 0),
    distinctUntilChanged(),
  );
}

/** Batch B's status node, each time it changes (undefined once the batch is gone). */
export function batchStatus$(zk: ZkClient, bid: string): Observable<NodeValue> {
  return data$(zk, batchChild(bid, 'status')).pipe(
    distinctUntilChanged((a, b) => a?.stat.mzxid === b?.stat.mzxid),
  );
}

/** The collections on hold (`/locks/collections/<mnemonic>`), each time a hold is set or cleared. */
export function collectionHolds$(zk: ZkClient): Observable<ReadonlySet<string>> {
  return children$(zk, COLLECTION_LOCKS).pipe(
    map((names) => [...names].sort()),
    distinctUntilChanged(sameList),
    map((names) => new Set(names)),
  );
}

/** Whether a queue is paused (`/locks/queue/<name>` exists), each time that changes. */
export function queuePaused$(zk: ZkClient, queue: QueueName): Observable<boolean> {
  return exists$(zk, queueLockPath(queue)).pipe(distinctUntilChanged());
}
