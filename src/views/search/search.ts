import type { QueueContext } from '../../queue/tree/context.js';
import { QueueError } from '../../queue/tree/errors.js';
import { showItem, type ShownItem } from '../listing/listing.js';
import {
  batchChild,
  batchPath,
  batchUuidPath,
  isBatchId,
  isJobId,
  jobChild,
  jobPath,
} from '../../queue/tree/paths.js';
import { SAFE_ID_MAX } from '../../queue/tree/safe-id.js';
import type { JobIndex, JobIndexStats } from '../job-index/job-index.js';
import { compareHits, matchEntry, MAX_QUERY_LENGTH, type RankedHit, type SearchHit } from './match.js';
import { decodeBatchStatus, decodeJobStatus, decodeText } from '../../queue/tree/wire.js';
import { isZkError } from '../../zk/index.js';

/** Results a search returns unless asked for fewer; and at most. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;

/**
 * How old the job index may be when the API searches it (ms): older than rollups take (2 s), as
 * ARKs, local ids and titles change only when a job moves and a search costs a refresh only when
 * someone searches.
 */
export const SEARCH_MAX_AGE_MS = 5_000;

/** A search's answer: the best hits first, at most the limit, and how many there were. */
export interface SearchResult {
  query: string;
  items: SearchHit[];
  total: number;
  truncated: boolean;
  /** The in-memory index the ARK, local id and title matches came from (absent for an id query). */
  index?: JobIndexStats;
}

/** An exact id (jid, bid) or batch uuid, looked up in ZooKeeper itself: never stale. */
async function exactHit(ctx: QueueContext, query: string): Promise<RankedHit | undefined> {
  if (isJobId(query))
    return (await ctx.zk.exists(jobPath(query)))
      ? { kind: 'job', id: query, match: 'jid', value: query, rank: 0 }
      : undefined;
  if (isBatchId(query))
    return (await ctx.zk.exists(batchPath(query)))
      ? { kind: 'batch', id: query, match: 'bid', value: query, rank: 0 }
      : undefined;
  if (query.length > SAFE_ID_MAX || !/^[A-Za-z0-9._-]+$/.test(query) || query === '.' || query === '..')
    return undefined;
  try {
    const bid = decodeText((await ctx.zk.getData(batchUuidPath(query))).data);
    return isBatchId(bid) ? { kind: 'batch', id: bid, match: 'uuid', value: query, rank: 0 } : undefined;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/** Each hit with its status as stored now (and a job's batch when the hit did not carry it). */
async function withStatus(ctx: QueueContext, hits: RankedHit[]): Promise<SearchHit[]> {
  const paths = hits.flatMap((hit) =>
    hit.kind === 'job'
      ? [jobChild(hit.id, 'status'), jobChild(hit.id, 'bid')]
      : [batchChild(hit.id, 'status')],
  );
  const nodes = await ctx.zk.getDataMany(paths);
  let at = 0;
  return hits.map(({ rank: _rank, ...hit }) => {
    const status = nodes[at++];
    const bid = hit.kind === 'job' ? decodeText(nodes[at++]?.data) : '';
    const withBid = bid && !hit.bid ? { ...hit, bid } : hit;
    try {
      const decoded =
        hit.kind === 'job'
          ? decodeJobStatus('status', status?.data, ctx.lifecycle).status
          : decodeBatchStatus('status', status?.data).status;
      return { ...withBid, status: decoded };
    } catch {
      return { ...withBid, status: 'invalid' };
    }
  });
}

function checkedQuery(rawQuery: string): string {
  const query = rawQuery.trim();
  if (query === '')
    throw new QueueError('BAD_REQUEST', 'an empty search finds nothing: give an id, ARK, local id or title');
  if (query.length > MAX_QUERY_LENGTH)
    throw new QueueError('BAD_REQUEST', `a search is at most ${MAX_QUERY_LENGTH} characters`);
  return query;
}

/**
 * Every hit, best first; the index is consulted only for a query that is not a jid or bid, and
 * refreshed first when older than `maxAgeMs` (the index's own age when absent).
 */
async function rankedHits(
  ctx: QueueContext,
  index: JobIndex,
  query: string,
  maxAgeMs?: number,
): Promise<{ hits: RankedHit[]; indexed: boolean }> {
  const exact = await exactHit(ctx, query);
  if (isJobId(query) || isBatchId(query)) return { hits: exact ? [exact] : [], indexed: false };
  await index.fresh(maxAgeMs);
  const hits = exact ? [exact] : [];
  for (const entry of index.searchEntries()) {
    if (exact && entry.id === exact.id) {
      if (entry.title) exact.title = entry.title;
      continue;
    }
    const hit = matchEntry(entry, query);
    if (hit) hits.push(hit);
  }
  return { hits: hits.sort(compareHits), indexed: true };
}

/**
 * Finds batches and jobs by jid, bid, batch uuid (ZooKeeper, exact), ARK, local id or title
 * prefix (the in-memory job index, refreshed first when older than `maxAgeMs`, or the index's own
 * maximum age). Best first: exact ids, ARK, local id, title equal, title prefix; batches before
 * jobs, newest first within each. At most `limit` hits, each with its status read now.
 * BAD_REQUEST for an empty or too long query.
 */
export async function searchQueue(
  ctx: QueueContext,
  index: JobIndex,
  rawQuery: string,
  limit = DEFAULT_SEARCH_LIMIT,
  maxAgeMs?: number,
): Promise<SearchResult> {
  const query = checkedQuery(rawQuery);
  const cap = Math.min(Math.max(1, limit), MAX_SEARCH_LIMIT);
  const { hits, indexed } = await rankedHits(ctx, index, query, maxAgeMs);
  const items = await withStatus(ctx, hits.slice(0, cap));
  const result: SearchResult = { query, items, total: hits.length, truncated: hits.length > cap };
  return indexed ? { ...result, index: index.stats() } : result;
}

/** What `mrtq show <key>` shows: the one item the key names, or the candidates when several rank alike. */
export type ShownByKey = { item: ShownItem } | { matches: SearchHit[]; total: number };

/**
 * One item by any key a search takes (jid, bid, batch uuid, ARK, local id, title prefix). A key
 * whose best match is unique names that item; several equally good matches (one ARK for each
 * version's job, a shared title prefix) are returned as candidates. NOT_FOUND when nothing
 * matches. Without an index of its own to keep, a one-shot caller passes a fresh JobIndex,
 * which reads every job once for an ARK, local id or title.
 */
export async function showByKey(ctx: QueueContext, index: JobIndex, rawKey: string): Promise<ShownByKey> {
  const key = checkedQuery(rawKey);
  const { hits } = await rankedHits(ctx, index, key);
  const [best, next] = hits;
  if (!best)
    throw new QueueError(
      'NOT_FOUND',
      `no batch or job has the id, uuid, ARK, local id or title "${key}"`,
      key,
    );
  if (next === undefined || next.rank > best.rank) return { item: await showItem(ctx, best.id) };
  const matches = await withStatus(ctx, hits.slice(0, DEFAULT_SEARCH_LIMIT));
  return { matches, total: hits.length };
}
