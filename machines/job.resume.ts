import type { JobState, JobWorkingState } from './states.js';
import type { TableEdge } from './table.js';

/** One row of the requeue table: the working state a job resumes at, and the last successes that lead there. */
export type RequeueRow = readonly [JobWorkingState, readonly string[]];

/**
 * Where a requeued job resumes, by its `last_successful_status`: mrt-admin's requeue table
 * (`requeue_ingest_job`, merritt-protocols.md §6), which restarts the step after the last one
 * that succeeded. It is derived from the lifecycle's own forward edges instead of listed: a job
 * whose last success was X resumes at the working state X's success leads to (an edge from X to
 * another working state that is not an operator's), and '' (no success yet, `null`) resumes
 * where the initial state's does. A last success that leads to no working state (`notify`,
 * whose success completes the job; `Failed` as Merritt's Java library writes it after a
 * requeue; a state this lifecycle does not know) is not requeued by this table: Merritt's admin
 * tool leaves such a job failed, and so does the machine; an operator can requeue it to a state
 * of their choice instead (`requeue --to`).
 *
 * The seeds' own reading differed in three places, each changed to mrt-admin's (docs/machines.md):
 * `held` and `completed`/`failed`/`deleted` used to restart at estimating, `notify` at notify.
 */
export function requeueRowsOf(
  edges: readonly TableEdge<JobState, string>[],
  workingStates: readonly JobWorkingState[],
  initial: JobState,
): RequeueRow[] {
  const working = new Set<string>(workingStates);
  const leadsTo = new Map<JobWorkingState, string[]>();
  for (const { from, to, event } of edges) {
    if (from === null || from === to || event.startsWith('admin.') || !working.has(to)) continue;
    if (from !== initial && !working.has(from)) continue;
    const statuses = leadsTo.get(to as JobWorkingState) ?? [];
    if (from === initial) statuses.push('');
    statuses.push(from);
    leadsTo.set(to as JobWorkingState, statuses);
  }
  return workingStates.flatMap((state) => {
    const statuses = leadsTo.get(state);
    return statuses ? [[state, statuses] as const] : [];
  });
}
