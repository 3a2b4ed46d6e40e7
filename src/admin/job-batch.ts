import { batchReportingStates } from '../../machines/index.js';
import { takeLockForAdmin, type AdminOptions } from './lock.js';
import type { AcquiredBatch } from '../queue/batches/acquire.js';
import { loadBatch } from '../queue/batches/load.js';
import type { QueueContext } from '../queue/tree/context.js';
import { isQueueError, QueueError } from '../queue/tree/errors.js';
import { releaseEventually } from '../queue/locks/lock.js';
import { batchPath } from '../queue/tree/paths.js';

/**
 * Takes the lock of the job's batch for an operator action that moves the job between the
 * batch's folders, so that no reporter reads the batch's job lists in between (its report would
 * leave the job out, or list a deleted job as failed). Refused (LOCK_HELD) while another session
 * holds the batch (expanding, reporting) or the batch is being reported.
 */
export async function lockJobsBatch(
  ctx: QueueContext,
  bid: string,
  jid: string,
  action: 'delete' | 'requeue',
  options: AdminOptions,
): Promise<AcquiredBatch> {
  const lock = await takeLockForAdmin(ctx, batchPath(bid), options).catch((err: unknown) => {
    if (!isQueueError(err, 'LOCK_HELD')) throw err;
    const why = 'being expanded, reported or changed by another operator';
    throw new QueueError(
      'LOCK_HELD',
      `batch ${bid} is locked (${why}); ${action} job ${jid} once it is free`,
      batchPath(bid),
      { cause: err },
    );
  });
  try {
    const batch = await loadBatch(ctx, bid);
    if (batchReportingStates.has(batch.status)) {
      throw new QueueError(
        'LOCK_HELD',
        `batch ${bid} is ${batch.status}; ${action} job ${jid} once its report is out`,
        batchPath(bid),
      );
    }
    return { batch, lock };
  } catch (err) {
    await releaseEventually(ctx, lock);
    throw err;
  }
}
