import type { JobWorkingState } from './states.js';

/**
 * Where a requeued job resumes, by its `last_successful_status`: mrt-admin's requeue table
 * (`requeue_ingest_job`, merritt-protocols.md §6), which restarts the step that failed. '' stands
 * for no success yet (`null`). A failed job whose last success is anything else (`Notify`,
 * `Failed` as Merritt's Java library writes it after a requeue, a state this lifecycle does not
 * know) is not requeued by this table: Merritt's admin tool leaves it failed, and so does the
 * machine; an operator can requeue it to a state of their choice instead (`requeue --to`).
 *
 * The seeds' own reading differed in three places, each changed to mrt-admin's (docs/machines.md):
 * `held` and `completed`/`failed`/`deleted` used to restart at estimating, `notify` at notify.
 */
export const jobRequeueTable: readonly (readonly [JobWorkingState, readonly string[]])[] = [
  ['estimating', ['', 'pending']],
  ['provisioning', ['estimating']],
  ['downloading', ['provisioning']],
  ['processing', ['downloading']],
  ['storing', ['processing']],
  ['recording', ['storing']],
  ['notify', ['recording']],
];
