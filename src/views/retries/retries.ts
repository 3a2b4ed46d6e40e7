import { currentRetry, decodeRetry, retryPath, type JobRetry } from '../../queue/jobs/retry-record.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { isZkError } from '../../zk/index.js';
import { jobChild, jobStateFolder, parseRefName } from '../../queue/tree/paths.js';
import { decodeJobStatus } from '../../queue/tree/wire.js';

/** A job waiting for its step's next attempt, as the dashboard and `GET /retries` list it. */
export interface RetryWait {
  jobId: string;
  state: string;
  nextAttempt: string;
  class: JobRetry['class'];
  code: string;
  failures: number;
  limit: number;
  message: string;
}

/** Jobs read per request (two nodes each): well under ZooKeeper's packet limit. */
const CHUNK = 100;

/**
 * The jobs waiting to retry, soonest first (at most `limit`): those of the states whose step may
 * retry (few jobs: the working states) whose retry record is current and names a next attempt.
 */
export async function listRetryWaits(ctx: QueueContext, limit = 1000): Promise<RetryWait[]> {
  const jids: string[] = [];
  for (const state of ctx.lifecycle.retryStates) {
    try {
      for (const name of await ctx.zk.getChildren(jobStateFolder(state))) {
        const jid = parseRefName(name)?.jid;
        if (jid) jids.push(jid);
      }
    } catch (err) {
      if (!isZkError(err, 'NO_NODE')) throw err;
    }
  }
  const waits: RetryWait[] = [];
  for (let i = 0; i < jids.length; i += CHUNK) {
    const chunk = jids.slice(i, i + CHUNK);
    const nodes = await ctx.zk.getDataMany(chunk.flatMap((jid) => [jobChild(jid, 'status'), retryPath(jid)]));
    chunk.forEach((jid, j) => {
      const status = nodes[2 * j];
      const retry = decodeRetry(nodes[2 * j + 1]?.data);
      if (!status || !retry) return;
      let state: string;
      try {
        state = decodeJobStatus(jobChild(jid, 'status'), status.data, ctx.lifecycle).status;
      } catch {
        return; // unreadable: doctor says so
      }
      const current = currentRetry(retry, { status: state, statusVersion: status.stat.version });
      if (current?.state !== state || current.next_attempt === undefined) return;
      waits.push({
        jobId: jid,
        state,
        nextAttempt: current.next_attempt,
        class: current.class,
        code: current.code,
        failures: current.failures,
        limit: current.limit,
        message: current.message,
      });
    });
  }
  return waits.sort((a, b) => (a.nextAttempt < b.nextAttempt ? -1 : 1)).slice(0, limit);
}
