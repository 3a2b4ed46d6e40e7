import type { BatchState } from './states.js';

/** What the batch machine knows about a batch. JSON only. */
export interface BatchContext {
  batchId: string;
  /** Jobs the expansion created; 0 until it finishes. */
  jobCount: number;
  /** Counts from the last report (status-report holds the job ids). */
  completedJobs: number;
  failedJobs: number;
  message: string | null;
  /**
   * The expansion failed: the batch went to reporting with `message` saying why, and the report
   * ends it failed. (Stored as an expansion that started and never finished.)
   */
  expansionFailed: boolean;
}

export type BatchInput = Pick<BatchContext, 'batchId'> & Partial<Omit<BatchContext, 'batchId'>>;

/** The batch's stored status together with its context. */
export interface StoredBatch extends BatchContext {
  status: BatchState;
}

/** Events the batch machine accepts, named `noun.verb`; step events name their step. */
export type BatchEvent =
  /** The pending consumer found a collection hold. */
  | { type: 'batch.held' }
  /** The pending consumer took the batch; expansion into jobs starts. */
  | { type: 'batch.acquired' }
  | { type: 'expand.done'; jobCount: number }
  /** The batch could not be expanded into jobs (bad payload or manifest): it is reported, saying why. */
  | { type: 'expand.failed'; message: string }
  /** `states/batch-processing` became empty: every job completed, failed or was deleted. */
  | { type: 'batch.jobs-done' }
  | { type: 'report.done'; completedJobs: number; failedJobs: number }
  | { type: 'report.failed'; message: string }
  /** A failed job of this batch was requeued, so the batch has work again. */
  | { type: 'batch.job-requeued' }
  | { type: 'admin.hold' }
  | { type: 'admin.release' }
  | { type: 'admin.update-report' }
  | { type: 'admin.delete' };

export type BatchEventType = BatchEvent['type'];

export type BatchStepInput = Readonly<BatchContext>;

/** The report step also learns whether it sends the first report or an update (003 update-reporting). */
export type ReportInput = BatchStepInput & { readonly update: boolean };

export interface ExpandOutput {
  jobCount: number;
}
export interface ReportOutput {
  completedJobs: number;
  failedJobs: number;
}
