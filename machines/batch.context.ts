import type { BatchContext, BatchInput } from './batch.types.js';

/** A batch's context from its input; counts start at 0. */
export function createBatchContext(input: BatchInput): BatchContext {
  return {
    batchId: input.batchId,
    jobCount: input.jobCount ?? 0,
    completedJobs: input.completedJobs ?? 0,
    failedJobs: input.failedJobs ?? 0,
    message: input.message ?? null,
  };
}
