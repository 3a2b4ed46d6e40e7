import type { JobLifecycle } from '../../../machines/index.js';

/**
 * How a batch's progress bar groups job states, derived from the lifecycle (DESIGN.md §7), never
 * listed: `failed` holds the states a failure edge leads to (the targets of each state's
 * {@link JobLifecycle.failureEvent}), `done` the machine's final states, `inFlight` the working
 * states (a step runs), `waiting` the rest (the initial state, and states such as held that wait
 * for an operator). Every state is in exactly one group.
 */
export interface ProgressCategories {
  done: string[];
  failed: string[];
  inFlight: string[];
  waiting: string[];
}

/** A batch's or a group's jobs counted by progress category; `total` is their sum. */
export interface Progress {
  done: number;
  failed: number;
  inFlight: number;
  waiting: number;
  total: number;
}

const cache = new WeakMap<JobLifecycle, ProgressCategories>();

/** The progress categories of `lifecycle` (computed once per lifecycle). */
export function progressCategories(lifecycle: JobLifecycle): ProgressCategories {
  const known = cache.get(lifecycle);
  if (known) return known;
  const groups: ProgressCategories = { done: [], failed: [], inFlight: [], waiting: [] };
  for (const state of lifecycle.states) {
    if (lifecycle.isFailed(state)) groups.failed.push(state);
    else if (lifecycle.isFinal(state)) groups.done.push(state);
    else if (lifecycle.isWorking(state)) groups.inFlight.push(state);
    else groups.waiting.push(state);
  }
  cache.set(lifecycle, groups);
  return groups;
}

/** Counts by state summed into progress categories; a state the lifecycle does not know counts as waiting. */
export function progressOf(
  counts: Readonly<Record<string, number>>,
  categories: ProgressCategories,
): Progress {
  const progress: Progress = { done: 0, failed: 0, inFlight: 0, waiting: 0, total: 0 };
  const groupOf = new Map<string, keyof ProgressCategories>();
  for (const group of ['done', 'failed', 'inFlight', 'waiting'] as const)
    for (const state of categories[group]) groupOf.set(state, group);
  for (const [state, n] of Object.entries(counts)) {
    progress[groupOf.get(state) ?? 'waiting'] += n;
    progress.total += n;
  }
  return progress;
}
