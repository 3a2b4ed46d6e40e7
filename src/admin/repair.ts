import { BATCH_FOLDERS, canBatch, type BatchFolder } from '../../machines/index.js';
import { takeLockForAdmin, type AdminOptions } from './lock.js';
import { nextBatchRecord, batchTransitionOps } from '../queue/batches/transition.js';
import type { QueueContext } from '../queue/tree/context.js';
import { QueueError } from '../queue/tree/errors.js';
import { lockJobsBatch } from './job-batch.js';
import { releaseEventually } from '../queue/locks/lock.js';
import {
  batchFolderPath,
  batchPath,
  batchRef,
  clampPriority,
  jobChild,
  jobPath,
  jobRef,
  jobStateFolder,
} from '../queue/tree/paths.js';
import { findRefIn } from '../queue/jobs/refs.js';
import { isZkError, ZkTransactionError, type Op } from '../zk/index.js';
import {
  decodeInteger,
  decodeJsonObject,
  decodeText,
  encodeJobStatus,
  encodeText,
} from '../queue/tree/wire.js';

/**
 * A job whose status this lifecycle does not know (written by another tool or an older version:
 * `Scanning`, a typo) cannot go through the machine, which has no such state. An operator moves
 * it to a state the lifecycle knows (`requeue --to`) or deletes it; this is that move, done like
 * every other: under the job's lock and its batch's, in one multi that checks the status version.
 */

/** A job's status as written, when the lifecycle does not know it; undefined when it does. */
export interface ForeignStatus {
  /** The status as written (`"Scanning"`, or JSON of a non-string value). */
  raw: string;
  lastSuccessfulStatus: string | null;
  retryCount: number;
  message: string | null;
  version: number;
}

/** Reads `/jobs/JID/status` as written; undefined when its status is one the lifecycle knows. */
export async function readForeignStatus(ctx: QueueContext, jid: string): Promise<ForeignStatus | undefined> {
  const path = jobChild(jid, 'status');
  let node;
  try {
    node = await ctx.zk.getData(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
  const json = decodeJsonObject(path, node.data);
  if (typeof json.status === 'string' && ctx.lifecycle.parse(json.status)) return undefined;
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  const retry = Number(json.retry_count ?? 0);
  return {
    raw: typeof json.status === 'string' ? json.status : JSON.stringify(json.status ?? null),
    lastSuccessfulStatus: text(json.last_successful_status),
    retryCount: Number.isInteger(retry) && retry >= 0 ? retry : 0,
    message: text(json.message),
    version: node.stat.version,
  };
}

/** The states an operator may move a foreign-status job to: where a consumer takes it up again. */
function checkTarget(ctx: QueueContext, jid: string, to: string): void {
  const { lifecycle } = ctx;
  if (to === lifecycle.enteredBy('admin.delete')) return;
  if (lifecycle.servableStates.includes(to)) return;
  throw new QueueError(
    'BAD_REQUEST',
    `cannot requeue job ${jid} to "${to}": expected one of ${lifecycle.servableStates.join(', ')}`,
    jobPath(jid),
  );
}

/** Which batch folder holds the job's ref now (any of them, or none). */
async function batchRefsOf(ctx: QueueContext, bid: string, jid: string): Promise<string[]> {
  const found = await Promise.all(
    BATCH_FOLDERS.map(async (folder) =>
      (await ctx.zk.exists(batchRef(bid, folder, jid))) ? folder : undefined,
    ),
  );
  return found.filter((folder) => folder !== undefined).map((folder) => batchRef(bid, folder, jid));
}

/** Creates for a batch folder another tool never made (its `states` too, if need be). */
async function missingFolders(ctx: QueueContext, bid: string, folder: BatchFolder): Promise<Op[]> {
  const states = `${batchPath(bid)}/states`;
  const [hasStates, hasFolder] = await Promise.all([
    ctx.zk.exists(states),
    ctx.zk.exists(batchFolderPath(bid, folder)),
  ]);
  return [
    ...(hasStates ? [] : [{ op: 'create' as const, path: states }]),
    ...(hasFolder ? [] : [{ op: 'create' as const, path: batchFolderPath(bid, folder) }]),
  ];
}

/**
 * Moves a job whose status the lifecycle does not know to `to` (a servable state: the job is
 * taken up there, retry count + 1; or `deleted`). Its ref leaves the folder of the foreign status
 * and its batch ref moves to the folder of the new state; a failed batch reopens as for a requeue.
 * BAD_REQUEST for a target it cannot be moved to, INVALID_TRANSITION for a job whose status is
 * known (it goes through the machine: requeue or delete as usual).
 */
export async function moveForeignJob(
  ctx: QueueContext,
  jid: string,
  to: string,
  options: AdminOptions = {},
): Promise<{ jobId: string; status: string; from: string }> {
  checkTarget(ctx, jid, to);
  const lock = await takeLockForAdmin(ctx, jobPath(jid), options);
  let batchLock: Awaited<ReturnType<typeof lockJobsBatch>> | undefined;
  try {
    const foreign = await readForeignStatus(ctx, jid);
    if (!foreign) {
      throw new QueueError(
        'INVALID_TRANSITION',
        `job ${jid} has a status this lifecycle knows: requeue or delete it as usual (--to is for a status it does not know)`,
        jobPath(jid),
      );
    }
    const [bidNode, priorityNode] = await ctx.zk.getDataMany([
      jobChild(jid, 'bid'),
      jobChild(jid, 'priority'),
    ]);
    const bid = decodeText(bidNode?.data);
    if (!bid) throw new QueueError('ITEM_INVALID', `${jobChild(jid, 'bid')} is missing`, jobPath(jid));
    const priority = clampPriority(decodeInteger(jobChild(jid, 'priority'), priorityNode?.data, 5));
    const deleting = to === ctx.lifecycle.enteredBy('admin.delete');
    const action = deleting ? 'delete' : 'requeue';
    batchLock = await lockJobsBatch(ctx, bid, jid, action, options);
    const [ref, batchRefs] = await Promise.all([
      findRefIn(ctx, jobStateFolder(foreign.raw), jid),
      batchRefsOf(ctx, bid, jid),
    ]);
    const status = {
      status: to,
      lastSuccessfulStatus: foreign.lastSuccessfulStatus,
      retryCount: deleting ? foreign.retryCount : foreign.retryCount + 1,
      message: deleting ? foreign.message : null,
    };
    const now = ctx.now();
    const ops: Op[] = [
      { op: 'check', path: lock.path },
      {
        op: 'set',
        path: jobChild(jid, 'status'),
        data: encodeJobStatus(status, now, ctx.lifecycle),
        version: foreign.version,
      },
      // Written clamped; created when another tool never wrote one.
      { op: priorityNode ? 'set' : 'create', path: jobChild(jid, 'priority'), data: encodeText(priority) },
    ];
    if (ref) ops.push({ op: 'delete', path: ref });
    if (!deleting) ops.push({ op: 'create', path: jobRef(to, priority, jid) });
    const folder = ctx.lifecycle.batchFolderOf(to);
    const target = batchRef(bid, folder, jid);
    for (const path of batchRefs) if (path !== target) ops.push({ op: 'delete', path });
    if (!batchRefs.includes(target))
      ops.push(...(await missingFolders(ctx, bid, folder)), { op: 'create', path: target });
    ops.push({ op: 'delete', path: lock.path });
    const { batch } = batchLock;
    if (!deleting && canBatch(batch, { type: 'batch.job-requeued' })) {
      ops.push(
        ...batchTransitionOps(batchLock, nextBatchRecord(batch, { type: 'batch.job-requeued' }), {}, now),
      );
    } else {
      ops.push({ op: 'delete', path: batchLock.lock.path });
    }
    await ctx.zk.multi(ops);
    ctx.log.info({ jobId: jid, from: foreign.raw, to }, 'job with an unknown status moved by an operator');
    return { jobId: jid, status: to, from: foreign.raw };
  } catch (err) {
    await releaseEventually(ctx, lock);
    if (batchLock) await releaseEventually(ctx, batchLock.lock);
    if (err instanceof ZkTransactionError && err.kind === 'BAD_VERSION') {
      throw new QueueError(
        'CONFLICT',
        `job ${jid} or its batch changed meanwhile; nothing committed`,
        jobPath(jid),
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}
