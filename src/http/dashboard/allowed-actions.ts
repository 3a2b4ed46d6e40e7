import {
  canAccess,
  merrittJobLifecycle,
  nextBatchState,
  type BatchEvent,
  type BatchState,
  type JobEvent,
  type JobLifecycle,
  type StoredAccess,
  type StoredBatch,
  type StoredJob,
  batchRoles,
  batchReportingStates,
} from '../../../machines/index.js';

/** The operator actions on a job (`POST /jobs/:jid/<action>`). */
export const JOB_ACTIONS = ['hold', 'release', 'requeue', 'delete', 'fail'] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/** The operator actions on a batch (`POST /batches/:bid/<action>`). */
export const BATCH_ACTIONS = ['hold', 'release', 'update-report', 'delete'] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

const JOB_EVENTS: Readonly<Record<JobAction, JobEvent>> = {
  hold: { type: 'admin.hold' },
  release: { type: 'admin.release' },
  requeue: { type: 'admin.requeue' },
  delete: { type: 'admin.delete' },
  fail: { type: 'admin.fail', message: 'failed by an operator' },
};

const BATCH_EVENTS: Readonly<Record<BatchAction, BatchEvent>> = {
  hold: { type: 'admin.hold' },
  release: { type: 'admin.release' },
  'update-report': { type: 'admin.update-report' },
  delete: { type: 'admin.delete' },
};

/** While its batch reports, a job's requeue is refused (LOCK_HELD, see requeueJob): try again after. */

/**
 * The actions `lifecycle`'s machine accepts for `job` now, in {@link JOB_ACTIONS} order: the
 * buttons an operator is offered. The API passes the lifecycle its queue runs; Merritt's is the
 * default. `batchStatus`, when known, leaves out a requeue the store would refuse because the batch
 * is reporting. A lock another session holds is not considered: that is a moment's refusal (409),
 * not the lifecycle's.
 */
export function allowedJobActions(
  job: StoredJob,
  batchStatus?: BatchState,
  lifecycle: JobLifecycle = merrittJobLifecycle,
): JobAction[] {
  return JOB_ACTIONS.filter((action) => {
    if (action === 'requeue' && batchStatus !== undefined && batchReportingStates.has(batchStatus))
      return false;
    return lifecycle.next(job, JOB_EVENTS[action]).ok;
  });
}

/**
 * The actions the batch machine accepts for `batch` now, in {@link BATCH_ACTIONS} order. A batch
 * already deleted keeps `delete`: the store accepts it again to finish removing what a locked job
 * kept (as `mrtq cleanup` would).
 */
export function allowedBatchActions(batch: StoredBatch): BatchAction[] {
  return BATCH_ACTIONS.filter(
    (action) =>
      nextBatchState(batch, BATCH_EVENTS[action]).ok ||
      (action === 'delete' && batch.status === batchRoles.deleted),
  );
}

/** The operator actions on an access request (`POST /access/:queue/:qid/<action>`). */
export const ACCESS_ACTIONS = ['requeue', 'delete'] as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[number];

/** The actions the access machine accepts for `request` now, in {@link ACCESS_ACTIONS} order. */
export function allowedAccessActions(request: StoredAccess): AccessAction[] {
  return ACCESS_ACTIONS.filter((action) => canAccess(request, { type: `admin.${action}` }));
}
