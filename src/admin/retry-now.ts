import { isZkError } from '../zk/index.js';
import { loadJob, type JobRecord } from '../queue/jobs/load.js';
import {
  currentRetry,
  decodeRetry,
  encodeRetry,
  retryPath,
  type JobRetry,
} from '../queue/jobs/retry-record.js';
import type { QueueContext } from '../queue/tree/context.js';
import { QueueError } from '../queue/tree/errors.js';
import { jobPath } from '../queue/tree/paths.js';

/** A job an operator told to try its step again now, and its retry record as written. */
export interface RetriedNow {
  job: JobRecord;
  retry: JobRetry;
}

/**
 * An operator's "retry now" of a job waiting for its step's next attempt (issue 34): its retry
 * record's `next_attempt` becomes now, nothing else changes (not the status, so not the count of
 * attempts nor `retry_count`, which keeps Merritt's meaning). Every engine watches the record of a
 * job it passed by for that reason, so the next attempt starts at once wherever there is room.
 * CONFLICT when the job is not waiting to retry (it never failed transiently, it moved on, or it
 * failed for good: a requeue is for that), or when its record changed meanwhile.
 */
export async function retryJobNow(ctx: QueueContext, jid: string): Promise<RetriedNow> {
  const job = await loadJob(ctx, jid, { bidOptional: true });
  const record = currentRetry(job.retry, job);
  if (record?.state !== job.status || record.next_attempt === undefined)
    throw new QueueError(
      'CONFLICT',
      `job ${jid} is not waiting to retry (it is ${job.status}${record ? `; its last failure was ${record.class}` : ''}): ` +
        'only a job waiting for its next attempt can be retried now; a failed job is requeued',
      jobPath(jid),
    );
  let retry: JobRetry;
  try {
    // Written over the record as read now, with its version: an attempt that ended meanwhile wins.
    const { data, stat } = await ctx.zk.getData(retryPath(jid));
    const fresh = decodeRetry(data);
    if (fresh?.status_version !== record.status_version || fresh.next_attempt === undefined)
      throw new QueueError('CONFLICT', `job ${jid} changed meanwhile; nothing written`, jobPath(jid));
    retry = { ...fresh, next_attempt: ctx.now().toISOString() };
    await ctx.zk.setData(retryPath(jid), encodeRetry(retry), stat.version);
  } catch (err) {
    if (isZkError(err, 'BAD_VERSION') || isZkError(err, 'NO_NODE'))
      throw new QueueError('CONFLICT', `job ${jid} changed meanwhile; nothing written`, jobPath(jid), {
        cause: err,
      });
    throw err;
  }
  ctx.log.info({ jobId: jid, state: job.status }, 'operator: retry now');
  return { job, retry };
}
