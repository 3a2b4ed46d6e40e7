import { parseTimestamp } from '../../queue/tree/timestamps.js';

/**
 * A batch's timeline as far as the tree can tell it. ZooKeeper keeps no history: each status
 * node holds only its last write (`last_modified`). So the derived timeline has one entry per
 * stored timestamp (the submission, each job's and the batch's last status write, the report),
 * and says so; the dashboard adds the transitions it sees live from `/events` while it is open.
 */
export const TIMELINE_NOTE =
  'Derived from stored timestamps: the submission, the last status write of the batch and of each ' +
  'job, and the status report. Earlier transitions are not stored, so they do not appear here; ' +
  'transitions seen live while the page is open are added as they happen.';

/** One entry: when, about what, and which stored timestamp it comes from. */
export interface TimelineEntry {
  /** ISO time. */
  at: string;
  item: 'batch' | 'job';
  id: string;
  what: 'submitted' | 'status' | 'report';
  /** The state the item is in since that write (status entries). */
  state?: string;
  label: string;
  /** The stored field the time comes from. */
  source: 'submission.submissionDate' | 'status.last_modified' | 'status-report.last_modified';
}

/** What the timeline is derived from (as the batch and job records and the report hold it). */
export interface TimelineInput {
  bid: string;
  status: string;
  lastModified: string;
  submissionDate?: string;
  report?: { last_modified: string; failed_jobs: readonly string[]; successful_jobs: readonly string[] };
  jobs: readonly { jid: string; status: string; lastModified: string; retryCount: number }[];
}

export interface Timeline {
  entries: TimelineEntry[];
  /** Timestamps that could not be read (left out). */
  unreadable: number;
}

/** `last_modified` (mrt-zk's format) or an ISO date, as ISO; undefined when unreadable. */
function isoOf(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const date = parseTimestamp(text) ?? new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Same second: the submission first, then the jobs (by id), the report, and the batch's status last. */
function rank(entry: TimelineEntry): number {
  if (entry.what === 'submitted') return 0;
  if (entry.item === 'job') return 1;
  return entry.what === 'report' ? 2 : 3;
}

function byTime(a: TimelineEntry, b: TimelineEntry): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function jobEntry(job: TimelineInput['jobs'][number]): Omit<TimelineEntry, 'at'> {
  const retry = job.retryCount > 0 ? ` (retry ${job.retryCount})` : '';
  return {
    item: 'job',
    id: job.jid,
    what: 'status',
    state: job.status,
    label: `job ${job.jid} ${job.status}${retry}: its last status write`,
    source: 'status.last_modified',
  };
}

/** Derives the timeline (oldest first) from the stored timestamps of a batch and its jobs. Pure. */
export function deriveTimeline(input: TimelineInput): Timeline {
  const candidates: [string | undefined, Omit<TimelineEntry, 'at'>][] = [];
  const batch = { item: 'batch', id: input.bid } as const;
  if (input.submissionDate !== undefined) {
    candidates.push([
      input.submissionDate,
      { ...batch, what: 'submitted', label: 'batch submitted', source: 'submission.submissionDate' },
    ]);
  }
  for (const job of input.jobs) candidates.push([job.lastModified, jobEntry(job)]);
  if (input.report) {
    const { successful_jobs: ok, failed_jobs: failed } = input.report;
    candidates.push([
      input.report.last_modified,
      {
        ...batch,
        what: 'report',
        label: `status report written: ${ok.length} completed, ${failed.length} failed`,
        source: 'status-report.last_modified',
      },
    ]);
  }
  candidates.push([
    input.lastModified,
    {
      ...batch,
      what: 'status',
      state: input.status,
      label: `batch ${input.status}: its last status write`,
      source: 'status.last_modified',
    },
  ]);
  const entries: TimelineEntry[] = [];
  let unreadable = 0;
  for (const [time, entry] of candidates) {
    const at = isoOf(time);
    if (at === undefined) unreadable += 1;
    else entries.push({ at, ...entry });
  }
  entries.sort(byTime);
  return { entries, unreadable };
}
