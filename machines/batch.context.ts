import type { BatchContext, BatchInput } from './batch.types.js';

/** A batch's context from its input; counts start at 0. */
export function createBatchContext(input: BatchInput): BatchContext {
  return {
    batchId: input.batchId,
    jobCount: input.jobCount ?? 0,
    completedJobs: input.completedJobs ?? 0,
    failedJobs: input.failedJobs ?? 0,
    message: input.message ?? null,
    expansionFailed: input.expansionFailed ?? false,
  };
}

/** How a report that could not be sent is added to an expansion failure's message. */
const REPORT_NOT_SENT = '; the report could not be sent: ';

/**
 * Why the batch could not be expanded, when that is how it failed: its message, without what a
 * failed report added to it. Undefined for a batch whose expansion did not fail.
 */
export function expansionFailureOf(
  batch: Pick<BatchContext, 'expansionFailed' | 'message'>,
): string | undefined {
  if (!batch.expansionFailed) return undefined;
  return batch.message?.split(REPORT_NOT_SENT)[0] || 'the batch could not be expanded into jobs';
}

/**
 * The message a batch keeps when its report could not be sent: why not; after a failed
 * expansion, the expansion's reason first, so the next report can still say it.
 */
export function reportFailureMessage(context: BatchContext, why: string): string {
  const expansion = expansionFailureOf(context);
  return expansion === undefined ? why : `${expansion}${REPORT_NOT_SENT}${why}`;
}
