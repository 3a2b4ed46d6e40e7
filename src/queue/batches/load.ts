import { type StoredBatch, batchRoles } from '../../../machines/index.js';
import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { batchChild, batchPath } from '../tree/paths.js';
import { readSubmission } from '../tree/merritt-ingest-keys.js';
import type { Submission } from '../tree/records.js';
import { decodeBatchStatus, decodeJsonObject, type BatchExpansion } from '../tree/wire.js';

/** A batch as read from ZooKeeper. */
export interface BatchRecord extends StoredBatch {
  lastModified: string;
  /** Version of `/batches/BID/status`: every transition sets it with this expected version. */
  statusVersion: number;
  submission: Submission;
  /** `/batches/BID/states` exists: the batch has been acquired at least once. */
  hasStates: boolean;
  /** This engine's expansion: started, done (`job_count` known), or foreign (another tool's batch). */
  expansion: BatchExpansion;
  /** Trace context kept in the status for a batch submitted without one (see BatchStatusData). */
  traceparent?: string;
}

/** The trace a batch's work continues: its submission's, else the one this engine gave it. */
export function batchTraceparent(batch: BatchRecord): string | undefined {
  return batch.submission.traceparent ?? batch.traceparent;
}

/** Reads a batch: NOT_FOUND when it does not exist, ITEM_INVALID naming the node when it is unreadable. */
export async function loadBatch(ctx: QueueContext, bid: string): Promise<BatchRecord> {
  // One request (multiRead) for the three nodes; `states` is read only for whether it exists.
  const [status, submission, states] = await ctx.zk.getDataMany([
    batchChild(bid, 'status'),
    batchChild(bid, 'submission'),
    batchChild(bid, 'states'),
  ]);
  if (!status) {
    if (!(await ctx.zk.exists(batchPath(bid))))
      throw new QueueError('NOT_FOUND', `batch ${bid} does not exist`, batchPath(bid));
    throw new QueueError('ITEM_INVALID', `${batchChild(bid, 'status')} is missing`, batchPath(bid), {
      incomplete: true,
    });
  }
  const stored = decodeBatchStatus(batchChild(bid, 'status'), status.data);
  if (!submission)
    throw new QueueError('ITEM_INVALID', `${batchChild(bid, 'submission')} is missing`, batchPath(bid), {
      incomplete: true,
    });
  return {
    batchId: bid,
    status: stored.status,
    message: stored.message,
    lastModified: stored.lastModified,
    statusVersion: status.stat.version,
    jobCount: stored.jobCount ?? 0,
    completedJobs: 0,
    failedJobs: 0,
    // Merritt's ingest writes its own key names (`profile`…): read under this engine's too.
    submission: readSubmission(decodeJsonObject(batchChild(bid, 'submission'), submission.data)),
    hasStates: states !== undefined,
    expansion: stored.expansion,
    // An expansion that started and never finished, in a batch that has left processing: it failed.
    expansionFailed: stored.expansion === 'started' && stored.status !== batchRoles.processing,
    traceparent: stored.traceparent,
  };
}
