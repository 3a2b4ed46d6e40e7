import { BATCH_FOLDERS, type BatchFolder } from '../../../machines/index.js';
import type { QueueContext } from '../tree/context.js';
import { createTreeReader, forEachWindow, mapWindowed, type NodeRead, type TreeReader } from './reader.js';
import {
  ACCESS,
  BATCHES,
  BATCH_UUIDS,
  JOBS,
  JOB_STATES,
  LOCKS,
  batchChild,
  batchFolderPath,
  batchPath,
  batchUuidPath,
  isBatchId,
  isJobId,
  jobChild,
  jobPath,
} from '../tree/paths.js';

/**
 * A raw snapshot of the queue tree: what the consistency check and cleanup decide from. Nothing
 * is decoded here, so unreadable data never stops the scan; the checks judge it.
 */
export interface QueueScan {
  jobs: Map<string, JobScan>;
  batches: Map<string, BatchScan>;
  /** Children of `/jobs/states/<folder>`, for every folder found there (known or not). */
  stateFolders: Map<string, string[]>;
  uuids: UuidScan[];
  /** Locks that are not a job's or a batch's: access requests and object locks. */
  otherLocks: LockScan[];
}

/**
 * The tree without its jobs' data: batches, ref folders, uuids and other locks. What every job
 * is checked against; doctor reads it first and then streams the jobs past it.
 */
export type QueueSkeleton = Omit<QueueScan, 'jobs'>;

export interface JobScan {
  jid: string;
  children: ReadonlySet<string>;
  status?: NodeRead;
  bid?: NodeRead;
  configuration?: NodeRead;
  priority?: NodeRead;
  /** ephemeralOwner of `lock`, when there is one. */
  lockOwner?: string;
  /** Creation time of the id node; read only when it has no status node (orphan candidates). */
  ctime?: number;
}

export interface BatchScan {
  bid: string;
  children: ReadonlySet<string>;
  status?: NodeRead;
  submission?: NodeRead;
  /** Job ids in each folder under `states`; a missing folder is empty. */
  folders: Record<BatchFolder, string[]>;
  lockOwner?: string;
  ctime?: number;
}

export interface UuidScan {
  uuid: string;
  path: string;
  /** The node's text: a batch id ('' when empty). */
  target: string;
  ctime: number;
}

export interface LockScan {
  /** The locked item: an access request id or the locked object's (sanitised) id. */
  item: string;
  path: string;
  owner: string;
}

/** Object locks mrt-zk creates as ephemeral nodes; queue and collection holds are persistent by design. */
const OBJECT_LOCK_FOLDERS = ['storage', 'inventory', 'localid'].map((name) => `${LOCKS}/${name}`);
const ACCESS_QUEUES = ['small', 'large'].map((name) => `${ACCESS}/${name}`);

/** Items read at once; with the reader's bound on requests, enough to keep the pipeline full. */
const SCAN_WINDOW = 1024;

/** Reads the whole queue tree with at most `concurrency` requests in flight. */
export async function scanQueue(ctx: QueueContext, concurrency?: number): Promise<QueueScan> {
  const read = createTreeReader(ctx.zk, concurrency);
  const { skeleton, jobIds } = await scanSkeleton(read);
  const jobs = new Map<string, JobScan>();
  await streamJobs(
    read,
    jobIds,
    (job) => job,
    (window) => window.forEach((job) => jobs.set(job.jid, job)),
  );
  return { ...skeleton, jobs };
}

/** Reads everything but the jobs, and the ids of the jobs (`/jobs`' children) to stream. */
export async function scanSkeleton(read: TreeReader): Promise<{ skeleton: QueueSkeleton; jobIds: string[] }> {
  const [jobIds, batchIds, stateFolders, uuids, otherLocks] = await Promise.all([
    read.children(JOBS),
    read.children(BATCHES),
    scanStateFolders(read),
    scanUuids(read),
    scanOtherLocks(read),
  ]);
  // A window at a time: 100,000 items asked for at once would queue half a million requests.
  const batches = await mapWindowed((batchIds ?? []).filter(isBatchId), SCAN_WINDOW, (bid) =>
    scanBatch(read, bid),
  );
  return {
    skeleton: {
      batches: new Map(batches.filter((batch) => batch !== undefined).map((batch) => [batch.bid, batch])),
      stateFolders,
      uuids,
      otherLocks,
    },
    jobIds: (jobIds ?? []).filter(isJobId),
  };
}

/**
 * Reads the jobs a window at a time, turns each job into `each(job)` as soon as it is read, and
 * hands each window's results (in order, without the jobs gone meanwhile) to `consume`. A job's
 * nodes die as soon as `each` is done with them, young: held for a whole window they outlived two
 * scavenges and were promoted, and the old generation grew to three times what was live.
 */
export async function streamJobs<S>(
  read: TreeReader,
  jobIds: readonly string[],
  each: (job: JobScan) => S,
  consume: (results: S[]) => void,
): Promise<void> {
  await forEachWindow(
    jobIds,
    SCAN_WINDOW,
    async (jid) => {
      const job = await scanJob(read, jid);
      return job === undefined ? undefined : each(job);
    },
    (window) => consume(window.filter((result) => result !== undefined)),
  );
}

function readIf(read: TreeReader, present: boolean, path: string): Promise<NodeRead | undefined> {
  return present ? read.data(path) : Promise.resolve(undefined);
}

const JOB_DATA = ['status', 'bid', 'configuration', 'priority'] as const;

/** Reads one job; undefined when it vanished meanwhile. */
export async function scanJob(read: TreeReader, jid: string): Promise<JobScan | undefined> {
  const names = await read.children(jobPath(jid));
  if (!names) return undefined;
  const children = new Set(names);
  // The data nodes in one request (the lock's stat tells its owner, the id node's its age).
  const wanted = JOB_DATA.filter((name) => children.has(name));
  const [reads, lock, self] = await Promise.all([
    read.dataMany(wanted.map((name) => jobChild(jid, name))),
    children.has('lock') ? read.stat(jobChild(jid, 'lock')) : undefined,
    children.has('status') ? undefined : read.stat(jobPath(jid)),
  ]);
  const node = (name: (typeof JOB_DATA)[number]): NodeRead | undefined => reads[wanted.indexOf(name)];
  const [status, bid, configuration, priority] = JOB_DATA.map(node);
  return {
    jid,
    children,
    status,
    bid,
    configuration,
    priority,
    lockOwner: lock?.ephemeralOwner,
    ctime: self?.ctime,
  };
}

async function scanFolders(
  read: TreeReader,
  bid: string,
  hasStates: boolean,
): Promise<Record<BatchFolder, string[]>> {
  const lists = await Promise.all(
    BATCH_FOLDERS.map((folder) =>
      hasStates ? read.children(batchFolderPath(bid, folder)) : Promise.resolve(undefined),
    ),
  );
  const folders = {} as Record<BatchFolder, string[]>;
  BATCH_FOLDERS.forEach((folder, i) => (folders[folder] = lists[i] ?? []));
  return folders;
}

/** Reads one batch; undefined when it vanished meanwhile. */
export async function scanBatch(read: TreeReader, bid: string): Promise<BatchScan | undefined> {
  const names = await read.children(batchPath(bid));
  if (!names) return undefined;
  const children = new Set(names);
  const [status, submission, folders, lock, self] = await Promise.all([
    readIf(read, children.has('status'), batchChild(bid, 'status')),
    readIf(read, children.has('submission'), batchChild(bid, 'submission')),
    scanFolders(read, bid, children.has('states')),
    children.has('lock') ? read.stat(batchChild(bid, 'lock')) : undefined,
    children.has('status') ? undefined : read.stat(batchPath(bid)),
  ]);
  return { bid, children, status, submission, folders, lockOwner: lock?.ephemeralOwner, ctime: self?.ctime };
}

async function scanStateFolders(read: TreeReader): Promise<Map<string, string[]>> {
  const folders = (await read.children(JOB_STATES)) ?? [];
  const lists = await Promise.all(folders.map((folder) => read.children(`${JOB_STATES}/${folder}`)));
  return new Map(folders.map((folder, i) => [folder, lists[i] ?? []]));
}

async function scanUuids(read: TreeReader): Promise<UuidScan[]> {
  const names = (await read.children(BATCH_UUIDS)) ?? [];
  const nodes = await Promise.all(names.map((uuid) => read.data(batchUuidPath(uuid))));
  return names.flatMap((uuid, i) => {
    const node = nodes[i];
    if (!node) return [];
    const target = node.data?.toString('utf8').trim() ?? '';
    return [{ uuid, path: batchUuidPath(uuid), target, ctime: node.stat.ctime }];
  });
}

async function scanLocksIn(
  read: TreeReader,
  folder: string,
  lockOf: (child: string) => string,
): Promise<LockScan[]> {
  const names = (await read.children(folder)) ?? [];
  const stats = await Promise.all(names.map((name) => read.stat(lockOf(`${folder}/${name}`))));
  return names.flatMap((item, i) => {
    const stat = stats[i];
    return stat ? [{ item, path: lockOf(`${folder}/${item}`), owner: stat.ephemeralOwner }] : [];
  });
}

async function scanOtherLocks(read: TreeReader): Promise<LockScan[]> {
  const lists = await Promise.all([
    ...OBJECT_LOCK_FOLDERS.map((folder) => scanLocksIn(read, folder, (path) => path)),
    ...ACCESS_QUEUES.map((folder) => scanLocksIn(read, folder, (path) => `${path}/lock`)),
  ]);
  return lists.flat();
}
