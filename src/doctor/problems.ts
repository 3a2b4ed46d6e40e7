import type { JobLifecycle } from '../../machines/index.js';
/**
 * What the consistency check reports. Codes are stable (scripts match on them); messages name
 * what is wrong, what was expected, and what to do about it.
 */
export type DoctorCode =
  /** An id node with no status and no refs, older than the grace period: a crashed creation. */
  | 'ORPHAN_ID_NODE'
  | 'JOB_STATUS_MISSING'
  /** `status` is not a JSON object. */
  | 'JOB_STATUS_INVALID'
  /** `status.status` (or last_successful_status) names no job state. */
  | 'JOB_STATUS_UNKNOWN'
  | 'JOB_BID_MISSING'
  /** The job's `bid` names a batch that does not exist. */
  | 'JOB_BATCH_MISSING'
  | 'JOB_CONFIGURATION_MISSING'
  | 'JOB_CONFIGURATION_INVALID'
  | 'JOB_PRIORITY_INVALID'
  /** A live job without `priority` or `space_needed`: mrt-zk creates both; Merritt's services fail setting them. */
  | 'JOB_NODE_MISSING'
  /** No `/jobs/states/*\/PP-jid` ref: no consumer will ever see the job. */
  | 'JOB_NO_STATE_REF'
  | 'JOB_STATE_REF_DUPLICATE'
  | 'JOB_STATE_REF_WRONG_FOLDER'
  | 'JOB_STATE_REF_WRONG_PRIORITY'
  | 'JOB_NO_BATCH_REF'
  | 'JOB_BATCH_REF_DUPLICATE'
  | 'JOB_BATCH_REF_WRONG_FOLDER'
  /** A child of a ref folder whose name is not a ref (`PP-jidN`, or `jidN` in a batch folder). */
  | 'REF_NAME_INVALID'
  /** A folder under `/jobs/states` that names no job state: its refs are invisible to consumers. */
  | 'STATE_FOLDER_UNKNOWN'
  | 'JOB_STATE_REF_DANGLING'
  | 'BATCH_REF_DANGLING'
  /** A batch ref whose job's `bid` names another batch. */
  | 'BATCH_REF_WRONG_BATCH'
  | 'BATCH_STATUS_MISSING'
  | 'BATCH_STATUS_INVALID'
  | 'BATCH_STATUS_UNKNOWN'
  | 'BATCH_SUBMISSION_MISSING'
  | 'BATCH_SUBMISSION_INVALID'
  /** A pending or held batch with job refs: jobs are only created once a batch is acquired. */
  | 'BATCH_JOBS_BEFORE_ACQUIRE'
  /** A completed batch with jobs in batch-processing or batch-failed. */
  | 'BATCH_COMPLETED_WITH_OPEN_JOBS'
  /** A deleted batch with jobs still in batch-processing. */
  | 'BATCH_DELETED_WITH_ACTIVE_JOBS'
  /** A failed batch with no message, no failed and no deleted jobs: nothing explains the failure. */
  | 'BATCH_FAILED_WITHOUT_CAUSE'
  /** `/batch-uuids/<uuid>` is empty or names a batch that does not exist. */
  | 'BATCH_UUID_DANGLING'
  /** `/batch-uuids/<uuid>` names a batch whose submission carries another batchID. */
  | 'BATCH_UUID_MISMATCH'
  /** A batch's submission carries a batchID with no `/batch-uuids` entry. */
  | 'BATCH_UUID_MISSING'
  /** A lock node that no live session owns. */
  | 'STALE_LOCK'
  /** A job working directory (`<workRoot>/<bid>/<jid>`) of a job that is done or gone (`mrtq doctor` on the engine's host). */
  | 'WORKDIR_LEFTOVER';

/** One violation found by `doctor`. */
export interface DoctorProblem {
  code: DoctorCode;
  /** The item concerned: a job or batch id, a uuid, an access request or object lock id, or a path. */
  item: string;
  /** The node that is wrong (or, for a missing node, where it should be). */
  path: string;
  message: string;
}

/**
 * What `doctor` tells without counting it as a problem (the exit code stays 0): a state of the
 * tree that is as it should be but that an operator may wonder about.
 */
export type DoctorNoteCode =
  /** A pending batch this engine leaves for Merritt's ingest (its payload is on ingest's disk). */
  | 'BATCH_LEFT_PENDING'
  /** A job this engine leaves for Merritt's ingest in a state whose step needs its payload. */
  | 'JOB_LEFT_FOR_INGEST'
  /**
   * A job whose ref carries its priority node's value outside 00-99 (`100-jid…`, `-1-jid…`), as
   * Merritt's mrt-zk writes it: the engine runs it and writes both clamped at its next transition.
   */
  | 'JOB_STATE_REF_UNCLAMPED'
  /** A folder's child list is at 80 % or more of what Merritt's Java readers accept. */
  | 'CHILD_LIST_NEAR_LIMIT'
  /** A folder's child list is longer than Merritt's Java readers accept: their getChildren of it fails. */
  | 'CHILD_LIST_OVER_LIMIT';

/** One note of `doctor`: same fields as a problem, never a reason to fail. */
export interface DoctorNote {
  code: DoctorNoteCode;
  item: string;
  path: string;
  message: string;
}

/** Builds a problem (argument order as the fields are read: code, item, node, message). */
export function problem(code: DoctorCode, item: string, path: string, message: string): DoctorProblem {
  return { code, item, path, message };
}

/** What the checks need besides the scan. */
export interface CheckSettings {
  /** ms since the epoch, from the queue context's clock. */
  now: number;
  orphanGraceMs: number;
  /** Sessions known to be alive; undefined when the caller could not tell. */
  liveSessions: ReadonlySet<string> | undefined;
  /** The job lifecycle the queue follows: which statuses and folders exist. */
  lifecycle: JobLifecycle;
}

/** True when a node created at `ctime` is older than the grace period (unknown ctime: not old). */
export function olderThanGrace(
  ctime: number | undefined,
  settings: Pick<CheckSettings, 'now' | 'orphanGraceMs'>,
): boolean {
  return ctime !== undefined && settings.now - ctime > settings.orphanGraceMs;
}

/** A grace period as messages show it: `10 min`, `45 s`. */
export function minutes(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
