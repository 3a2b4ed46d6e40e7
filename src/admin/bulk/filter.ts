import {
  statesAccepting as machineStatesAccepting,
  type BatchFolder,
  type JobEvent,
  type JobLifecycle,
} from '../../../machines/index.js';
import { QueueError } from '../../queue/tree/errors.js';
import type { JobRecord } from '../../queue/jobs/load.js';
import type { BulkAction } from './actions.js';
import { isBatchId } from '../../queue/tree/paths.js';

// Kept in a module of their own so the command line lists them without loading the queue.
export { BULK_ACTIONS, isBulkAction, type BulkAction } from './actions.js';

/** The machine event each bulk action sends a job (the per-item function sends the same one). */
export const BULK_EVENTS: Readonly<Record<BulkAction, JobEvent>> = {
  requeue: { type: 'admin.requeue' },
  delete: { type: 'admin.delete' },
  release: { type: 'admin.release' },
  hold: { type: 'admin.hold' },
};

/**
 * Which jobs a bulk action is about: every key given must match. At least one of them is
 * required, so that "every job in the queue" is never an accident. Without `state`, the states
 * the lifecycle allows the action from (see {@link statesAccepting}).
 */
export interface BulkFilter {
  batch?: string;
  /** The job configuration's collection mnemonic. */
  collection?: string;
  /** The job configuration's `profile_name`. */
  profile?: string;
  state?: string;
}

/**
 * The states whose machine node has a transition on `eventType`, in table order: read from the
 * machine, so a lifecycle with another state needs nothing here (DESIGN.md §7). A guarded edge
 * counts (requeue depends on the last success); the per-item check then decides.
 */
export function statesAccepting(lifecycle: JobLifecycle, eventType: string): string[] {
  const accepting = new Set(machineStatesAccepting(lifecycle.machine, eventType));
  return lifecycle.states.filter((state) => accepting.has(state));
}

/** A filter checked against the lifecycle: BAD_REQUEST naming the key that is wrong. */
export function checkBulkFilter(lifecycle: JobLifecycle, filter: BulkFilter): void {
  const { batch, collection, profile, state } = filter;
  if (batch === undefined && collection === undefined && profile === undefined && state === undefined)
    throw new QueueError('BAD_REQUEST', 'a bulk action needs a filter: batch, collection, profile or state');
  if (batch !== undefined && !isBatchId(batch))
    throw new QueueError('BAD_REQUEST', `"${batch}" is not a batch id (bid…)`, batch);
  if (state !== undefined && !lifecycle.isState(state))
    throw new QueueError(
      'BAD_REQUEST',
      `unknown job state "${state}" (one of: ${lifecycle.states.join(', ')})`,
      state,
    );
}

/**
 * The states whose jobs a bulk action looks at: the filter's state, else every state the
 * lifecycle allows the action from. A filter state the action does not apply to is kept: its
 * jobs are then each reported refused by the lifecycle, which is what the operator asked to see.
 */
export function targetStates(lifecycle: JobLifecycle, action: BulkAction, filter: BulkFilter): string[] {
  return filter.state !== undefined ? [filter.state] : statesAccepting(lifecycle, BULK_EVENTS[action].type);
}

/**
 * Where a batch's jobs in `states` are found: the batch folder of each state. A folder that holds
 * only one state of the lifecycle (batch-failed: failed) needs no other index; one that holds
 * several (batch-processing: every state in work) is narrowed by the state folders too.
 */
export function batchFoldersFor(
  lifecycle: JobLifecycle,
  states: readonly string[],
): { folder: BatchFolder; narrowBy?: string[] }[] {
  const byFolder = new Map<BatchFolder, string[]>();
  for (const state of states) {
    const folder = lifecycle.batchFolderOf(state);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), state]);
  }
  const shared = (folder: BatchFolder): boolean =>
    lifecycle.states.filter((state) => lifecycle.batchFolderOf(state) === folder).length > 1;
  return [...byFolder].map(([folder, inFolder]) =>
    shared(folder) ? { folder, narrowBy: inFolder } : { folder },
  );
}

/** Whether a job read from ZooKeeper matches the filter in one of `states` (a ref may be stale). */
export function jobMatches(job: JobRecord, filter: BulkFilter, states: readonly string[]): boolean {
  const { configuration } = job;
  return (
    states.includes(job.status) &&
    (filter.batch === undefined || job.batchId === filter.batch) &&
    (filter.collection === undefined || configuration.collection === filter.collection) &&
    (filter.profile === undefined || configuration.profile_name === filter.profile)
  );
}

/** Whether only the filter's batch and state decide a match (no job data needed to tell). */
export const needsJobData = (filter: BulkFilter): boolean =>
  filter.collection !== undefined || filter.profile !== undefined;
