import { DEFAULT_JOB_PRIORITY, type JobContext, type JobInput } from './job.types.js';

/** A job's context from its input: the seeds' creation values (seed 001 "(None) --> Pending") where absent. */
export function createJobContext(input: JobInput): JobContext {
  return {
    jobId: input.jobId,
    batchId: input.batchId,
    priority: input.priority ?? DEFAULT_JOB_PRIORITY,
    spaceNeeded: input.spaceNeeded ?? 0,
    retryCount: input.retryCount ?? 0,
    lastSuccessfulStatus: input.lastSuccessfulStatus ?? null,
    message: input.message ?? null,
  };
}
