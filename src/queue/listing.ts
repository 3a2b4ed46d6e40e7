import type { BatchState } from '../../machines/index.js';
import { isZkError } from '../zk/index.js';
import { listBatchJobs } from './batch-jobs.js';
import { loadBatch, type BatchRecord } from './batch-load.js';
import type { QueueContext } from './context.js';
import { createLimit } from './doctor-reader.js';
import { isQueueError, QueueError } from './errors.js';
import { loadJob, type JobRecord } from './job-load.js';
import { readJobConfiguration } from './merritt-ingest-keys.js';
import { lockOwner } from './locks.js';
import {
  BATCHES,
  BATCH_FOLDERS,
  JOBS,
  batchChild,
  batchFolderPath,
  batchPath,
  batchUuidPath,
  isBatchId,
  isJobId,
  jobChild,
  jobPath,
  jobStateFolder,
  parseRefName,
  sortRefs,
  type BatchFolder,
} from './paths.js';
import type { StatusReport } from './records.js';
import { decodeJsonObject, decodeText } from './wire.js';

/**
 * The read model operators and the HTTP API list and show items with. Reads are bounded: at most
 * this many items (a handful of requests each) in flight. An item that cannot be read appears with
 * status `invalid` and the reason as its message; an item removed while being read is left out.
 */
export const ITEM_CONCURRENCY = 32;

/** Which slice of a list to return. */
export type Page = { offset: number; limit: number };
/** One page of a list and how many items match in all. */
export type Listing<T> = { items: T[]; total: number };

/** A batch in a list: its status, who submitted what, and how many of its jobs sit in each folder. */
export interface BatchSummary {
  bid: string;
  uuid?: string;
  status: BatchState | 'invalid';
  profile: string;
  submitter: string;
  submissionDate?: string;
  lastModified: string;
  message: string | null;
  /** Jobs the expansion created, once it is done. */
  jobCount?: number;
  counts: { processing: number; completed: number; failed: number; deleted: number };
}

/** What {@link listBatches} keeps; `invalid` lists the unreadable batches. */
export type BatchFilter = { status?: BatchState | 'invalid'; profile?: string; submitter?: string };

/** A job in a list. */
export interface JobSummary {
  jid: string;
  bid: string;
  status: string;
  priority: number;
  retryCount: number;
  lastSuccessfulStatus: string | null;
  message: string | null;
  lastModified: string;
  /** Some session holds the job's lock (a step runs, or an operator acts on it). */
  locked: boolean;
  /** For an `invalid` job whose status node is readable: the status as written (`Scanning`). */
  rawStatus?: string;
}

/** What {@link listJobs} keeps. */
export type JobFilter = { state?: string; batch?: string; collection?: string };

/** One item shown in full: a batch with its report and job refs, or a job with its lock owner. */
export type ShownItem =
  | { kind: 'batch'; batch: BatchRecord; report?: StatusReport; jobs: { folder: BatchFolder; jid: string }[] }
  | { kind: 'job'; job: JobRecord; lockOwner?: string };

type Read<T> = { id: string; record: T } | { id: string; error: QueueError };

function mapLimited<T, S>(items: T[], work: (item: T) => Promise<S>): Promise<S[]> {
  const limit = createLimit(ITEM_CONCURRENCY);
  return Promise.all(items.map((item) => limit(() => work(item))));
}

/** Reads every id with bounded concurrency; vanished items are dropped, unreadable ones kept with their error. */
async function readAll<T>(ids: string[], load: (id: string) => Promise<T>): Promise<Read<T>[]> {
  const reads = await mapLimited(ids, async (id): Promise<Read<T> | undefined> => {
    try {
      return { id, record: await load(id) };
    } catch (err) {
      if (isQueueError(err, 'NOT_FOUND')) return undefined;
      if (isQueueError(err)) return { id, error: err };
      throw err;
    }
  });
  return reads.filter((read) => read !== undefined);
}

/** Reads all candidates when a filter needs their data, else only the page; then summarises the page. */
async function pageOf<T, S>(
  ids: string[],
  page: Page,
  load: (id: string) => Promise<T>,
  keep: ((read: Read<T>) => boolean) | undefined,
  summarise: (read: Read<T>) => Promise<S>,
): Promise<Listing<S>> {
  const end = page.offset + page.limit;
  const matching = keep ? (await readAll(ids, load)).filter(keep) : undefined;
  const shown = matching
    ? matching.slice(page.offset, end)
    : await readAll(ids.slice(page.offset, end), load);
  return { items: await mapLimited(shown, summarise), total: matching ? matching.length : ids.length };
}

async function childCount(ctx: QueueContext, path: string): Promise<number> {
  return (await ctx.zk.exists(path))?.numChildren ?? 0;
}

async function batchSummary(ctx: QueueContext, read: Read<BatchRecord>): Promise<BatchSummary> {
  const [processing = 0, completed = 0, failed = 0, deleted = 0] = await Promise.all(
    BATCH_FOLDERS.map((folder) => childCount(ctx, batchFolderPath(read.id, folder))),
  );
  const counts = { processing, completed, failed, deleted };
  if ('error' in read) {
    const blank = { profile: '', submitter: '', lastModified: '' };
    return { bid: read.id, status: 'invalid', ...blank, message: read.error.message, counts };
  }
  const batch = read.record;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    bid: batch.batchId,
    uuid: text(batch.submission.batchID),
    status: batch.status,
    profile: text(batch.submission.profile_name) ?? '',
    submitter: text(batch.submission.submitter) ?? '',
    submissionDate: text(batch.submission.submissionDate),
    lastModified: batch.lastModified,
    message: batch.message,
    jobCount: batch.expansion === 'done' ? batch.jobCount : undefined,
    counts,
  };
}

function batchFilter(filter: BatchFilter): ((read: Read<BatchRecord>) => boolean) | undefined {
  if (filter.status === undefined && filter.profile === undefined && filter.submitter === undefined)
    return undefined;
  return (read) => {
    if ('error' in read) return filter.status === 'invalid' && !filter.profile && !filter.submitter;
    const { status, submission } = read.record;
    return (
      (filter.status === undefined || status === filter.status) &&
      (filter.profile === undefined || submission.profile_name === filter.profile) &&
      (filter.submitter === undefined || submission.submitter === filter.submitter)
    );
  };
}

/**
 * Batches newest first (bid descending), filtered by status, profile and submitter. Without a
 * filter only the page is read; with one, every batch's status and submission are read.
 */
export async function listBatches(
  ctx: QueueContext,
  filter: BatchFilter,
  page: Page,
): Promise<Listing<BatchSummary>> {
  const bids = (await childrenOrEmpty(ctx, BATCHES)).filter(isBatchId).sort().reverse();
  const load = (bid: string): Promise<BatchRecord> => loadBatch(ctx, bid);
  return pageOf(bids, page, load, batchFilter(filter), (read) => batchSummary(ctx, read));
}

async function childrenOrEmpty(ctx: QueueContext, path: string): Promise<string[]> {
  try {
    return await ctx.zk.getChildren(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** The jobs of a state folder in priority order (refs `PP-jid` sort so). */
async function stateOrder(ctx: QueueContext, state: string): Promise<string[]> {
  const refs = sortRefs(await childrenOrEmpty(ctx, jobStateFolder(state)));
  return [...new Set(refs.map((name) => parseRefName(name)?.jid).filter((jid) => jid !== undefined))];
}

/** Job ids in list order: a state folder in priority order, else newest first; restricted to a batch. */
async function jobCandidates(ctx: QueueContext, filter: JobFilter): Promise<string[]> {
  let inBatch: Set<string> | undefined;
  if (filter.batch !== undefined) {
    if (!isBatchId(filter.batch) || !(await ctx.zk.exists(batchPath(filter.batch))))
      throw new QueueError('NOT_FOUND', `batch ${filter.batch} does not exist`, batchPath(filter.batch));
    inBatch = new Set((await listBatchJobs(ctx, filter.batch)).map((ref) => ref.jid));
  }
  const allCandidates = async () =>
    inBatch ? [...inBatch] : (await childrenOrEmpty(ctx, JOBS)).filter(isJobId);
  const jids =
    filter.state === undefined
      ? (await allCandidates()).sort().reverse()
      : await stateOrder(ctx, filter.state);
  const candidates = inBatch ? jids.filter((jid) => inBatch.has(jid)) : jids;
  if (filter.collection === undefined) return candidates;
  const collections = await mapLimited(candidates, (jid) => collectionOf(ctx, jid));
  return candidates.filter((_, i) => collections[i] === filter.collection);
}

/** A job's collection from its configuration alone (one read); undefined when unreadable. */
async function collectionOf(ctx: QueueContext, jid: string): Promise<unknown> {
  const path = jobChild(jid, 'configuration');
  try {
    return readJobConfiguration(decodeJsonObject(path, (await ctx.zk.getData(path)).data)).collection;
  } catch (err) {
    if (isQueueError(err) || isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/** The `status` field of a status node, as written; undefined when the node is not a JSON object with one. */
function statusAsWritten(data: Buffer | undefined): string | undefined {
  try {
    const status = decodeJsonObject('status', data).status;
    return typeof status === 'string' ? status : undefined;
  } catch {
    return undefined;
  }
}

async function jobSummary(ctx: QueueContext, read: Read<JobRecord>): Promise<JobSummary> {
  const locked = (await ctx.zk.exists(`${jobPath(read.id)}/lock`)) !== undefined;
  if ('error' in read) {
    const [bid, status] = await ctx.zk
      .getDataMany([jobChild(read.id, 'bid'), jobChild(read.id, 'status')])
      .catch(() => [undefined, undefined]);
    const blank = { priority: 5, retryCount: 0, lastSuccessfulStatus: null, lastModified: '' };
    const summary = { jid: read.id, bid: decodeText(bid?.data), status: 'invalid', ...blank };
    const rawStatus = statusAsWritten(status?.data);
    return { ...summary, message: read.error.message, locked, ...(rawStatus ? { rawStatus } : {}) };
  }
  const { jobId: jid, batchId: bid, status, priority, retryCount, lastSuccessfulStatus } = read.record;
  const { message, lastModified } = read.record;
  return { jid, bid, status, priority, retryCount, lastSuccessfulStatus, message, lastModified, locked };
}

/**
 * Jobs filtered by state (read from `/jobs/states/<state>`, in priority order), batch (the
 * batch's folders) and collection (each candidate's configuration is read); without a state,
 * newest first. NOT_FOUND when the batch filter names no batch.
 */
export async function listJobs(
  ctx: QueueContext,
  filter: JobFilter,
  page: Page,
): Promise<Listing<JobSummary>> {
  const jids = await jobCandidates(ctx, filter);
  return pageOf(
    jids,
    page,
    (jid) => loadJob(ctx, jid),
    undefined,
    (read) => jobSummary(ctx, read),
  );
}

async function readReport(ctx: QueueContext, bid: string): Promise<StatusReport | undefined> {
  const path = batchChild(bid, 'status-report');
  try {
    const { data } = await ctx.zk.getData(path);
    return decodeJsonObject(path, data) as unknown as StatusReport;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    if (!isQueueError(err)) throw err;
    ctx.log.warn({ batchId: bid, err }, 'unreadable status report not shown');
    return undefined;
  }
}

async function uuidTarget(ctx: QueueContext, uuid: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(uuid)) return undefined;
  try {
    const bid = decodeText((await ctx.zk.getData(batchUuidPath(uuid))).data);
    return isBatchId(bid) ? bid : undefined;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/**
 * One item in full, by bid, jid or batch uuid (`/batch-uuids`). NOT_FOUND when nothing has that
 * id; ITEM_INVALID when the item exists but cannot be read.
 */
export async function showItem(ctx: QueueContext, id: string): Promise<ShownItem> {
  if (isJobId(id)) {
    const [job, owner] = await Promise.all([loadJob(ctx, id), lockOwner(ctx, jobPath(id))]);
    return owner === undefined ? { kind: 'job', job } : { kind: 'job', job, lockOwner: owner };
  }
  const bid = isBatchId(id) ? id : await uuidTarget(ctx, id);
  if (bid === undefined) throw new QueueError('NOT_FOUND', `no batch, job or batch uuid "${id}"`, id);
  const [batch, report, jobs] = await Promise.all([
    loadBatch(ctx, bid),
    readReport(ctx, bid),
    listBatchJobs(ctx, bid),
  ]);
  return report === undefined ? { kind: 'batch', batch, jobs } : { kind: 'batch', batch, report, jobs };
}
