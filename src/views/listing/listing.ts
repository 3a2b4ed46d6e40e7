import { setImmediate as nextTurn } from 'node:timers/promises';
import { type BatchState, type BatchFolder } from '../../../machines/index.js';
import { isZkError, NAMES_PER_TURN } from '../../zk/index.js';
import {
  batchJobCount,
  countBatchJobs,
  folderChildren,
  listBatchJobs,
  type BatchJobCounts,
} from '../../queue/batches/jobs.js';
import { loadBatch, type BatchRecord } from '../../queue/batches/load.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit, mapWindowed } from '../../queue/scan/reader.js';
import { Smallest } from '../../queue/tree/smallest.js';
import {
  childrenCached,
  childrenOrEmpty,
  indexAfterDescending,
  indexAfterRef,
  readInOrder,
  SCAN_WINDOW,
  stateOrder,
  type Candidates,
  type Read,
} from './scan.js';
import { encodeCursor, type Sort } from './sort.js';
import { sortedBatches, sortedJobs } from './sorted.js';
import { isQueueError, QueueError } from '../../queue/tree/errors.js';
import { loadJob, type JobRecord } from '../../queue/jobs/load.js';
import { readJobConfiguration } from '../../queue/tree/merritt-ingest-keys.js';
import { lockOwner } from '../../queue/locks/lock.js';
import {
  BATCHES,
  JOBS,
  batchChild,
  batchPath,
  batchUuidPath,
  isBatchId,
  isJobId,
  jobChild,
  jobPath,
  parseRefName,
} from '../../queue/tree/paths.js';
import type { StatusReport } from '../../queue/tree/records.js';
import { decodeJsonObject, decodeText } from '../../queue/tree/wire.js';

/**
 * The read model operators and the HTTP API list and show items with. Reads are bounded: at most
 * this many items (a handful of requests each) in flight. An item that cannot be read appears with
 * status `invalid` and the reason as its message; an item removed while being read is left out.
 */
export const ITEM_CONCURRENCY = 32;

/**
 * Which slice of a list to return: `limit` items, skipping `offset`, after the cursor `after` (the
 * `next` of the page before) when given, in `sort`'s order when given (else the list's own order:
 * newest first, or a state folder's priority order). Under a sort, `next` encodes the sort and
 * the last item's key (see listing-sort.ts).
 */
export type Page = { offset: number; limit: number; after?: string; sort?: Sort };
/** One page of a list, how many items match in all, and (when more follow) the `after` of the next page. */
export type Listing<T> = { items: T[]; total: number; next?: string };

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
  /** How many jobs the batch has, once its expansion is done (see batchJobCount). */
  jobCount?: number;
  counts: BatchJobCounts;
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
export type JobFilter = { state?: string; batch?: string; folder?: BatchFolder; collection?: string };

/**
 * One item shown in full: a batch with its report, its jobs counted per folder and its job refs,
 * or a job with its lock owner. The batch's `jobCount` is counted as listings count it.
 */
export type ShownItem =
  | {
      kind: 'batch';
      batch: BatchRecord;
      counts: BatchJobCounts;
      report?: StatusReport;
      jobs: { folder: BatchFolder; jid: string }[];
    }
  | { kind: 'job'; job: JobRecord; lockOwner?: string };

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

/** The `next` of a page ending at `id`: the id itself, or under a sort a cursor with its key. */
function nextCursor(candidates: Candidates, page: Page, id: string): string {
  return page.sort && candidates.keyOf ? encodeCursor(page.sort, candidates.keyOf(id), id) : id;
}

/**
 * Reads only the page when no filter needs the items' data; else every candidate a window at a
 * time (counting the matches, keeping only the page's), so memory stays bounded however many
 * there are. Then summarises the page.
 */
async function pageOf<T, S>(
  candidates: Candidates,
  page: Page,
  load: (id: string) => Promise<T>,
  keep: ((read: Read<T>) => boolean) | undefined,
  summarise: (read: Read<T>) => Promise<S>,
): Promise<Listing<S>> {
  const { ids, start } = candidates;
  const from = start + page.offset;
  if (!keep) {
    const slice = ids.slice(from, from + page.limit);
    const items = await mapLimited(await readAll(slice, load), summarise);
    const more = from + page.limit < ids.length;
    const total = candidates.total ?? ids.length;
    return more && slice.length > 0
      ? { items, total, next: nextCursor(candidates, page, slice.at(-1)!) }
      : { items, total };
  }
  // Matches before the page's start count towards the total only.
  let total = 0;
  for await (const read of readInOrder(ids.slice(0, start), load, ITEM_CONCURRENCY))
    if (keep(read)) total += 1;
  let skipped = 0;
  let more = false;
  const shown: Read<T>[] = [];
  for await (const read of readInOrder(ids.slice(start), load, ITEM_CONCURRENCY)) {
    if (!keep(read)) continue;
    total += 1;
    if (skipped < page.offset) skipped += 1;
    else if (shown.length < page.limit) shown.push(read);
    else more = true;
  }
  const items = await mapLimited(shown, summarise);
  return more ? { items, total, next: nextCursor(candidates, page, shown.at(-1)!.id) } : { items, total };
}

async function batchSummary(ctx: QueueContext, read: Read<BatchRecord>): Promise<BatchSummary> {
  const counts = await countBatchJobs(ctx, read.id);
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
    jobCount: batchJobCount(batch, counts),
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
 * Batches newest first (bid descending), or in `page.sort`'s order, filtered by status, profile and
 * submitter. Without a filter or a sort by update or status only the page is read; else every
 * batch's status (and, with a filter, its submission).
 */
export async function listBatches(
  ctx: QueueContext,
  filter: BatchFilter,
  page: Page,
): Promise<Listing<BatchSummary>> {
  const bids = (await childrenOrEmpty(ctx, BATCHES)).filter(isBatchId).sort().reverse();
  const load = (bid: string): Promise<BatchRecord> => loadBatch(ctx, bid);
  const candidates = page.sort
    ? await sortedBatches(ctx, bids, page.sort, page.after)
    : { ids: bids, start: indexAfterDescending(bids, page.after) };
  return pageOf(candidates, page, load, batchFilter(filter), (read) => batchSummary(ctx, read));
}

/** The candidates `keep` lets through, the start moved to match. */
function narrowed({ ids, start, keyOf }: Candidates, keep: (jid: string, i: number) => boolean): Candidates {
  let kept = 0;
  const out = ids.filter((jid, i) => {
    const keeps = keep(jid, i);
    if (keeps && i < start) kept += 1;
    return keeps;
  });
  return keyOf ? { ids: out, start: kept, keyOf } : { ids: out, start: kept };
}

/**
 * Job ids in list order (a state folder in priority order, else newest first), restricted to a
 * batch and a collection, and where a page after `after` starts among them.
 */
async function jobCandidates(
  ctx: QueueContext,
  filter: JobFilter,
  after?: string,
  sort?: Sort,
): Promise<Candidates> {
  let inBatch: Set<string> | undefined;
  if (filter.batch !== undefined) {
    if (!isBatchId(filter.batch) || !(await ctx.zk.exists(batchPath(filter.batch))))
      throw new QueueError('NOT_FOUND', `batch ${filter.batch} does not exist`, batchPath(filter.batch));
    inBatch = new Set(
      filter.folder
        ? await folderChildren(ctx, filter.batch, filter.folder)
        : (await listBatchJobs(ctx, filter.batch)).map((ref) => ref.jid),
    );
  } else if (filter.folder !== undefined) {
    throw new QueueError('BAD_REQUEST', 'folder: a batch folder is a filter of one batch (give batch too)');
  }
  let ordered: Candidates;
  if (sort) {
    ordered = await sortedJobs(ctx, filter.state, inBatch, sort, after);
  } else if (filter.state === undefined) {
    const all = inBatch ? [...inBatch] : (await childrenOrEmpty(ctx, JOBS)).filter(isJobId);
    const ids = all.sort().reverse();
    ordered = { ids, start: indexAfterDescending(ids, after) };
  } else {
    const refs = await stateOrder(ctx, filter.state);
    const ids = refs.map((name) => parseRefName(name)!.jid);
    ordered = { ids, start: await indexAfterRef(ctx, refs, after) };
  }
  const candidates = inBatch ? narrowed(ordered, (jid) => inBatch.has(jid)) : ordered;
  if (filter.collection === undefined) return candidates;
  // One small read per candidate, a window at a time.
  const limit = createLimit(ITEM_CONCURRENCY);
  const collections = await mapWindowed(candidates.ids, SCAN_WINDOW, (jid) =>
    limit(() => collectionOf(ctx, jid)),
  );
  return narrowed(candidates, (_, i) => collections[i] === filter.collection);
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
 * The page's candidates among all jobs, newest first: the `offset + limit + 1` newest after the
 * cursor, selected in one pass over the (cached) job ids instead of sorting a million of them.
 */
async function newestJobs(ctx: QueueContext, page: Page): Promise<Candidates> {
  const all = await childrenCached(ctx, JOBS);
  const { after } = page;
  const newest = new Smallest<string>(page.offset + page.limit + 1, (a, b) => a < b);
  let total = 0;
  for (let i = 0; i < all.length; i++) {
    // A million ids are a few tens of ms of work: other requests go on between two slices.
    if (i > 0 && i % NAMES_PER_TURN === 0) await nextTurn();
    const name = all[i]!;
    if (!isJobId(name)) continue;
    total += 1;
    if (after === undefined || name < after) newest.offer(name);
  }
  return { ids: newest.sorted(), start: 0, total };
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
  const unfiltered = Object.values(filter).every((value) => value === undefined);
  const candidates =
    unfiltered && !page.sort
      ? await newestJobs(ctx, page)
      : await jobCandidates(ctx, filter, page.after, page.sort);
  return pageOf(
    candidates,
    page,
    (jid) => loadJob(ctx, jid),
    undefined,
    (read) => jobSummary(ctx, read),
  );
}

/**
 * Every job {@link listJobs} would list, in the same order, from just after `after`: read a
 * window at a time and yielded as read, so a script can take 100,000 jobs in bounded memory.
 */
export async function* streamJobs(
  ctx: QueueContext,
  filter: JobFilter,
  after?: string,
): AsyncGenerator<JobSummary> {
  const { ids, start } = await jobCandidates(ctx, filter, after);
  const load = (jid: string): Promise<JobRecord> => loadJob(ctx, jid);
  yield* readInOrder(ids.slice(start), load, ITEM_CONCURRENCY, (read) => jobSummary(ctx, read));
}

/** Every batch {@link listBatches} would list, newest first, from just after `after`, as read. */
export async function* streamBatches(
  ctx: QueueContext,
  filter: BatchFilter,
  after?: string,
): AsyncGenerator<BatchSummary> {
  const bids = (await childrenOrEmpty(ctx, BATCHES)).filter(isBatchId).sort().reverse();
  const keep = batchFilter(filter) ?? (() => true);
  const load = (bid: string): Promise<BatchRecord> => loadBatch(ctx, bid);
  const summarise = async (read: Read<BatchRecord>) => (keep(read) ? batchSummary(ctx, read) : undefined);
  const start = indexAfterDescending(bids, after);
  for await (const summary of readInOrder(bids.slice(start), load, ITEM_CONCURRENCY, summarise))
    if (summary) yield summary;
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
 * id; ITEM_INVALID when the item exists but cannot be read (a job without its `bid` node can:
 * shown with `bidMissing`, batch `''`). With `{ jobRefs: false }` a batch comes
 * without its job refs (`jobs` empty): a batch of 50,000 jobs is then four listings cheaper.
 */
export async function showItem(
  ctx: QueueContext,
  id: string,
  { jobRefs = true }: { jobRefs?: boolean } = {},
): Promise<ShownItem> {
  if (isJobId(id)) {
    // A job whose bid node is gone is still shown, as one whose batch is not known (bidMissing).
    const [job, owner] = await Promise.all([
      loadJob(ctx, id, { bidOptional: true }),
      lockOwner(ctx, jobPath(id)),
    ]);
    return owner === undefined ? { kind: 'job', job } : { kind: 'job', job, lockOwner: owner };
  }
  const bid = isBatchId(id) ? id : await uuidTarget(ctx, id);
  if (bid === undefined) throw new QueueError('NOT_FOUND', `no batch, job or batch uuid "${id}"`, id);
  const [loaded, counts, report, jobs] = await Promise.all([
    loadBatch(ctx, bid),
    countBatchJobs(ctx, bid),
    readReport(ctx, bid),
    jobRefs ? listBatchJobs(ctx, bid) : [],
  ]);
  // Counted as `mrtq batches` counts it; before an expansion is done, the record's own 0.
  const batch = { ...loaded, jobCount: batchJobCount(loaded, counts) ?? loaded.jobCount };
  return report === undefined
    ? { kind: 'batch', batch, counts, jobs }
    : { kind: 'batch', batch, counts, report, jobs };
}
