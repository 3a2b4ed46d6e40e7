import { ZkError } from '../../zk/index.js';
import type { BulkAction, BulkFilter } from './filter.js';
import { isQueueError } from '../../queue/tree/errors.js';

/** At most this many per-item outcomes are listed in a report; the counts cover every item. */
export const MAX_LISTED_ITEMS = 1000;

/** What a bulk run did to one job, or (dry run) would do: its state before and after. */
export interface BulkDone {
  jid: string;
  bid: string;
  from: string;
  outcome: 'would' | 'done';
  to: string;
}

/** Why a job was not changed: the stable code of the refusal and its message. */
export interface BulkRefused {
  jid: string;
  bid?: string;
  from?: string;
  outcome: 'refused';
  error: string;
  message: string;
}

export type BulkItem = BulkDone | BulkRefused;

/** How many jobs matched and what became of them. */
export interface BulkCounts {
  matched: number;
  /** Dry run: jobs the lifecycle would move. */
  would: number;
  done: number;
  refused: number;
  /** Jobs that could not be read, so not told to match a collection or profile filter. */
  unreadable: number;
}

/** The answer of a bulk run: counts of every item, and the first {@link MAX_LISTED_ITEMS} items. */
export interface BulkReport {
  action: BulkAction;
  dryRun: boolean;
  filter: BulkFilter;
  /** The job states looked at (the filter's, or those the lifecycle allows the action from). */
  states: string[];
  counts: BulkCounts;
  /** Refusals counted by code (`INVALID_TRANSITION`, `LOCK_HELD`…). */
  refusedBy: Record<string, number>;
  /** Refused items first, then the others, each in job id order; at most {@link MAX_LISTED_ITEMS}. */
  items: BulkItem[];
  /** More items than are listed. */
  truncated: boolean;
}

/**
 * A per-item failure as an outcome: a queue refusal keeps its code, any other error its code
 * when it has one. ZooKeeper gone (a retryable ZkError) is not an item's outcome: it is thrown
 * on, so the whole run stops as any command does when ZooKeeper is away.
 */
export function refusalOf(err: unknown): { error: string; message: string } {
  if (isQueueError(err)) return { error: err.code, message: err.message };
  if (err instanceof ZkError && !err.retryable) return { error: err.code, message: err.message };
  throw err;
}

const byJid = (a: BulkItem, b: BulkItem): number => (a.jid < b.jid ? -1 : a.jid > b.jid ? 1 : 0);

/** The report of a run from its per-item outcomes (pure: any order in, a stable order out). */
export function summarize(
  head: Pick<BulkReport, 'action' | 'dryRun' | 'filter' | 'states'>,
  items: readonly BulkItem[],
  unreadable = 0,
  maxListed = MAX_LISTED_ITEMS,
): BulkReport {
  const counts: BulkCounts = { matched: items.length, would: 0, done: 0, refused: 0, unreadable };
  const refusedBy: Record<string, number> = {};
  for (const item of items) {
    counts[item.outcome] += 1;
    if (item.outcome === 'refused') refusedBy[item.error] = (refusedBy[item.error] ?? 0) + 1;
  }
  const refused = items.filter((item) => item.outcome === 'refused').sort(byJid);
  const others = items.filter((item) => item.outcome !== 'refused').sort(byJid);
  const ordered = [...refused, ...others];
  return {
    ...head,
    counts,
    refusedBy,
    items: ordered.slice(0, maxListed),
    truncated: ordered.length > maxListed,
  };
}
