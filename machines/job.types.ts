/** What the job machine knows about a job: the volatile fields of its ZooKeeper nodes. JSON only. */
export interface JobContext {
  jobId: string;
  batchId: string;
  /** Lower runs first; part of the `/jobs/states/<state>/PP-jid` ref name. */
  priority: number;
  spaceNeeded: number;
  retryCount: number;
  /** The state the job last finished; `null` until a step succeeds; kept when a step fails. */
  lastSuccessfulStatus: string | null;
  message: string | null;
}

/** What a new or restored job starts from; omitted fields take the seeds' creation values. */
export type JobInput = Pick<JobContext, 'jobId' | 'batchId'> & Partial<Omit<JobContext, 'jobId' | 'batchId'>>;

/** The job's stored status together with its context: what the engine reads back from ZooKeeper. */
export interface StoredJob extends JobContext {
  /** A state of the job's lifecycle (Merritt's: {@link JobState}). */
  status: string;
}

/** Default priority of a new job (DESIGN.md §2: `/jobs/JID/priority`, default 5). */
export const DEFAULT_JOB_PRIORITY = 5;

/**
 * Events the job machine accepts, named `noun.verb`.
 * Step events name their step (`download.done`, not a generic `step.done`) so that a stale
 * worker's result can never move a job that another worker has already moved on.
 */
export type JobEvent =
  /** The pending consumer found a collection hold. */
  | { type: 'job.held' }
  /** The pending consumer took the job (lock held, no hold in place). */
  | { type: 'job.acquired' }
  /** The job can never run: digest mismatch or corrupt manifest (seed 003 "immediately fail"). */
  | { type: 'job.rejected'; message: string }
  | { type: 'estimate.done'; spaceNeeded: number; priority?: number }
  /** Not the step's (it never fails): a node the job needs stays missing, so nothing can run it. */
  | { type: 'estimate.failed'; message: string }
  | { type: 'provision.done' }
  /** Not enough working space yet: the job stays in provisioning, says why, and is evaluated again later. */
  | { type: 'space.short'; message?: string }
  /** Waiting cannot help (the object is larger than any space this machine provides) or has lasted too long. */
  | { type: 'provision.failed'; message: string }
  | { type: 'download.done'; spaceNeeded?: number }
  | { type: 'download.failed'; message: string }
  | { type: 'process.done' }
  | { type: 'process.failed'; message: string }
  | { type: 'store.done' }
  | { type: 'store.failed'; message: string }
  | { type: 'record.done' }
  | { type: 'record.failed'; message: string }
  | { type: 'notify.done' }
  | { type: 'notify.failed'; message: string }
  /**
   * The step failed transiently and its retry policy allows another attempt: the job stays in its
   * state, says why and when (`message`), and waits until `retryAt` (ISO 8601), kept in ZooKeeper
   * with the job so every engine honours it (src/engine/retry).
   */
  | { type: 'step.retry'; message: string; retryAt: string }
  | { type: 'admin.hold' }
  | { type: 'admin.release' }
  | { type: 'admin.requeue' }
  | { type: 'admin.delete' }
  /** An operator fails a job that is waiting or working (mrt-admin's Fail), saying why. */
  | { type: 'admin.fail'; message: string };

export type JobEventType = JobEvent['type'];

/** Every step actor receives the job's context; the steps read anything else from ZooKeeper. */
export type JobStepInput = Readonly<JobContext>;

export interface EstimateOutput {
  spaceNeeded: number;
  /** A new priority for an excessively large job (seed 003); omitted keeps the current one. */
  priority?: number;
}
export interface ProvisionOutput {
  hasSpace: boolean;
  /** Why not, for the operator (e.g. "needs 1.2 GB, 0.8 GB free"). */
  message?: string;
  /**
   * Waiting cannot help: the object is larger than any working space this machine provides, or
   * the job has waited longer than allowed. The job fails with `message` instead of staying.
   */
  giveUp?: boolean;
  /**
   * While it waits: how long until it has waited its limit. The engine looks at the job again
   * then (a timer), not only at its next re-evaluation, so the limit ends the wait when it says.
   */
  retryInMs?: number;
}
export interface DownloadOutput {
  /** The space the downloaded files really take, when the estimate was off. */
  spaceNeeded?: number;
}
