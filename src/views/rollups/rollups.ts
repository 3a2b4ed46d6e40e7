import type { QueueContext } from '../../queue/tree/context.js';
import { progressCategories, progressOf, type Progress, type ProgressCategories } from './categories.js';
import { jobIndexOf, type IndexedJob, type JobIndexStats } from '../job-index/job-index.js';

/** What jobs are grouped by: the profile they were submitted with, or their collection. */
export const ROLLUP_KEYS = ['collection', 'profile'] as const;
export type RollupKey = (typeof ROLLUP_KEYS)[number];

/** The waiting job whose status changed longest ago: how long a group's queue has been waiting. */
export interface OldestWaiting {
  jid: string;
  state: string;
  since: string;
}

/** One collection's or profile's jobs: counts by state (states with none left out), progress, oldest waiting job. */
export interface Rollup {
  key: string;
  total: number;
  states: Record<string, number>;
  progress: Progress;
  oldestWaiting?: OldestWaiting;
}

/** The rollups by one key, largest group first, with the categories and the index they came from. */
export interface Rollups {
  by: RollupKey;
  groups: Rollup[];
  /** The lifecycle's states in table order, and how progress groups them. */
  states: readonly string[];
  categories: ProgressCategories;
  index: JobIndexStats;
}

type Group = { key: string; states: Record<string, number>; oldest?: [string, IndexedJob] };

/**
 * Counts every job by collection or profile and state, and finds each group's oldest waiting job
 * (a job in a waiting state — see {@link progressCategories} — whose status changed longest ago).
 * Computed from the in-memory job index (src/views/job-index/job-index.ts), refreshed incrementally when
 * older than 2 s: a request reads no job it read before unless the job moved since.
 */
export async function computeRollups(ctx: QueueContext, by: RollupKey): Promise<Rollups> {
  const index = jobIndexOf(ctx);
  const jobs = await index.fresh();
  const categories = progressCategories(ctx.lifecycle);
  const waiting = new Set(categories.waiting);
  const groups = new Map<string, Group>();
  for (const entry of jobs) {
    const [, job] = entry;
    const key = job[by];
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { key, states: {} }));
    group.states[job.state] = (group.states[job.state] ?? 0) + 1;
    if (waiting.has(job.state) && (!group.oldest || older(entry, group.oldest))) group.oldest = entry;
  }
  const rollups = [...groups.values()].map((group): Rollup => {
    const progress = progressOf(group.states, categories);
    const rollup: Rollup = { key: group.key, total: progress.total, states: group.states, progress };
    if (group.oldest) {
      const [jid, job] = group.oldest;
      rollup.oldestWaiting = { jid, state: job.state, since: new Date(job.updated).toISOString() };
    }
    return rollup;
  });
  rollups.sort((a, b) => b.total - a.total || a.key.localeCompare(b.key));
  return { by, groups: rollups, states: ctx.lifecycle.states, categories, index: index.stats() };
}

function older([jidA, a]: [string, IndexedJob], [jidB, b]: [string, IndexedJob]): boolean {
  return a.updated < b.updated || (a.updated === b.updated && jidA < jidB);
}
