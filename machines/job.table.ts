import type { JobEventType } from './job.types.js';
import { requeueRowsOf, type RequeueRow } from './job.resume.js';
import {
  isJobWorkingState,
  jobStates,
  jobStepOfState,
  jobWorkingStates,
  type JobState,
  type JobWorkingState,
} from './states.js';
import type { TableEdge } from './table.js';

/** The job lifecycle's event names plus `job.created`, which only creates a job. */
export type JobTableEvent = JobEventType | 'job.created';
export type JobEdge = TableEdge<JobState, JobTableEvent>;

function requeue(to: JobWorkingState, statuses: readonly string[]): JobEdge {
  return {
    from: 'failed',
    event: 'admin.requeue',
    to,
    guard: { type: 'hasLastSuccessIn', params: { statuses } },
    trigger: `operator requeue; resumes at ${to} when last_successful_status is ${statuses.map((s) => s || 'null').join(' or ')}`,
  };
}

/** mrt-admin's Fail from a waiting or working state (merritt-protocols.md §6). */
function adminFail(from: JobState): JobEdge {
  return { from, event: 'admin.fail', to: 'failed', trigger: 'operator fail (locks released)' };
}

/** The lifecycle's edges other than an operator's requeue, delete of a failed job and fail. */
const forwardEdges: readonly JobEdge[] = [
  { from: null, event: 'job.created', to: 'pending', trigger: 'batch expansion creates the job' },
  {
    from: null,
    event: 'job.rejected',
    to: 'failed',
    trigger: 'digest mismatch or corrupt manifest at creation',
  },
  { from: 'pending', event: 'job.held', to: 'held', trigger: 'collection hold found' },
  { from: 'pending', event: 'admin.hold', to: 'held', trigger: 'operator hold' },
  { from: 'pending', event: 'job.acquired', to: 'estimating', trigger: 'pending consumer took the job' },
  { from: 'pending', event: 'job.rejected', to: 'failed', trigger: 'digest mismatch or corrupt manifest' },
  { from: 'held', event: 'admin.release', to: 'pending', trigger: 'operator release' },
  { from: 'held', event: 'admin.delete', to: 'deleted', trigger: 'operator delete' },
  {
    from: 'estimating',
    event: 'estimate.done',
    to: 'provisioning',
    trigger: 'estimate finished (the step never fails)',
  },
  {
    from: 'estimating',
    event: 'estimate.failed',
    to: 'failed',
    trigger: 'a node the job needs stays missing (mrt-zk states.yml: Estimating → Failed)',
  },
  { from: 'provisioning', event: 'provision.done', to: 'downloading', trigger: 'enough working space' },
  { from: 'provisioning', event: 'space.short', to: 'provisioning', trigger: 'not enough space; stays' },
  {
    from: 'provisioning',
    event: 'provision.failed',
    to: 'failed',
    trigger: 'larger than any working space here, or waited longer than allowed',
  },
  { from: 'downloading', event: 'download.done', to: 'processing', trigger: 'all files downloaded' },
  { from: 'downloading', event: 'download.failed', to: 'failed', trigger: 'a download failed after retries' },
  {
    from: 'processing',
    event: 'process.done',
    to: 'storing',
    trigger: 'object prepared; store and inventory hand-off nodes written',
  },
  { from: 'processing', event: 'process.failed', to: 'failed', trigger: 'minting or preparation failure' },
  { from: 'storing', event: 'store.done', to: 'recording', trigger: 'version stored' },
  { from: 'storing', event: 'store.failed', to: 'failed', trigger: 'storage failure' },
  { from: 'recording', event: 'record.done', to: 'notify', trigger: 'recorded in inventory' },
  { from: 'recording', event: 'record.failed', to: 'failed', trigger: 'inventory recording failed' },
  { from: 'notify', event: 'notify.done', to: 'completed', trigger: 'depositor notified' },
  { from: 'notify', event: 'notify.failed', to: 'failed', trigger: 'callback failed' },
];

/**
 * A transient failure that its retry policy allows to be tried again keeps the job in its state
 * (src/engine/retry): one such edge beside each step failure of the table, in every working state
 * whose step's error fails the job (estimate's error is an estimate of 0, provision's a wait for
 * space: those two never fail by their step's error).
 */
const NEVER_FAILED_BY_THEIR_STEP: readonly string[] = ['estimate', 'provision'];
const retryEdges: readonly JobEdge[] = forwardEdges.flatMap((edge): JobEdge[] => {
  const step = edge.from !== null && isJobWorkingState(edge.from) ? jobStepOfState[edge.from] : undefined;
  if (step === undefined || NEVER_FAILED_BY_THEIR_STEP.includes(step) || edge.event !== `${step}.failed`)
    return [];
  return [
    {
      from: edge.from,
      event: 'step.retry',
      to: edge.from as JobState,
      trigger: 'a transient failure its retry policy allows to try again; stays until its next attempt',
    },
  ];
});

/** mrt-admin's requeue table, derived from the forward edges (job.resume.ts). */
export const jobRequeueTable: readonly RequeueRow[] = requeueRowsOf(
  forwardEdges,
  jobWorkingStates,
  jobStates[0] as JobState,
);

/** Every transition of the job lifecycle (DESIGN.md §3) and no other. */
export const jobTable: readonly JobEdge[] = [
  ...forwardEdges,
  ...retryEdges,
  ...jobRequeueTable.map(([to, statuses]) => requeue(to, statuses)),
  { from: 'failed', event: 'admin.delete', to: 'deleted', trigger: 'operator delete' },
  ...(['pending', ...jobWorkingStates] as const).map(adminFail),
];
