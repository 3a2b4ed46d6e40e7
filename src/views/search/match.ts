/**
 * How a search query matches a batch or a job (pure). Keys, best first: an id (jid, bid, batch
 * uuid), the job's ARK (`identifiers.primary_id`), a local id, the title (equal, then prefix).
 */

/** What a hit matched on. */
export type SearchMatch = 'jid' | 'bid' | 'uuid' | 'ark' | 'localId' | 'title';

/** What the index keeps of an item: only the keys a search can match. */
export interface SearchEntry {
  kind: 'job' | 'batch';
  id: string;
  /** A job's batch. */
  bid?: string;
  uuid?: string;
  ark?: string;
  localIds: readonly string[];
  title?: string;
}

/** One item a search found. */
export interface SearchHit {
  kind: 'job' | 'batch';
  id: string;
  bid?: string;
  match: SearchMatch;
  /** The stored value that matched. */
  value: string;
  title?: string;
  /** The item's status when the answer was made (read live); absent when unreadable. */
  status?: string;
}

/** Longest query accepted (a title prefix or an id is far shorter). */
export const MAX_QUERY_LENGTH = 500;

/** Rank of each kind of match (lower first); a title equal to the query ranks above a prefix. */
const RANK: Readonly<Record<SearchMatch, number>> = { jid: 0, bid: 0, uuid: 0, ark: 1, localId: 2, title: 3 };

/** `ark:/13030/x`, `ark:13030/x` and `13030/x` name the same ARK. */
export const arkKey = (ark: string): string => ark.trim().replace(/^ark:\/?/i, '');

/** Local ids as stored: Merritt writes several in one string separated by `;`. */
export function splitLocalIds(values: readonly unknown[]): string[] {
  const ids = values.flatMap((value) => (typeof value === 'string' ? value.split(';') : []));
  return [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
}

const fold = (text: string): string => text.normalize('NFKC').toLowerCase();

function titleRank(title: string, query: string): number | undefined {
  const a = fold(title.trim());
  const b = fold(query);
  if (a === b) return RANK.title;
  return a.startsWith(b) ? RANK.title + 1 : undefined;
}

/** A hit and its rank. */
export type RankedHit = SearchHit & { rank: number };

/** The best way `entry` matches `query` (already trimmed), or undefined. */
export function matchEntry(entry: SearchEntry, query: string): RankedHit | undefined {
  const base = { kind: entry.kind, id: entry.id, ...(entry.bid ? { bid: entry.bid } : {}) };
  const titled = entry.title ? { title: entry.title } : {};
  if (entry.id === query) {
    const match = entry.kind === 'job' ? 'jid' : 'bid';
    return { ...base, ...titled, match, value: query, rank: RANK[match] };
  }
  if (entry.uuid !== undefined && entry.uuid === query)
    return { ...base, ...titled, match: 'uuid', value: entry.uuid, rank: RANK.uuid };
  if (entry.ark !== undefined && arkKey(entry.ark) === arkKey(query) && arkKey(query) !== '')
    return { ...base, ...titled, match: 'ark', value: entry.ark, rank: RANK.ark };
  const localId = entry.localIds.find((id) => id === query);
  if (localId !== undefined)
    return { ...base, ...titled, match: 'localId', value: localId, rank: RANK.localId };
  const rank = entry.title ? titleRank(entry.title, query) : undefined;
  if (rank !== undefined && entry.title)
    return { ...base, ...titled, match: 'title', value: entry.title, rank };
  return undefined;
}

/** Best first: by rank, batches before jobs, then newest (highest id) first. */
export function compareHits(a: RankedHit, b: RankedHit): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.kind !== b.kind) return a.kind === 'batch' ? -1 : 1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
