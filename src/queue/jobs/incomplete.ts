import { basename } from 'node:path';
import { type StoredJob, type BatchFolder } from '../../../machines/index.js';
import type { Op } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { isQueueError, QueueError } from '../tree/errors.js';
import { loadJob } from './load.js';
import { findRefIn } from './refs.js';
import { releaseEventually, releasingOnError, tryLock, type HeldLock } from '../locks/lock.js';
import {
  BATCHES,
  batchFolderPath,
  batchPath,
  batchRef,
  jobChild,
  jobPath,
  jobRef,
  jobStateFolder,
  parseRefName,
} from '../tree/paths.js';
import { decodeJobStatus, decodeText, encodeJobStatus } from '../tree/wire.js';

/** What became of a job that stayed without a node it needs. */
export type IncompleteOutcome =
  | { failed: true; message: string }
  | {
      failed: false;
      /**
       * `usable`: its nodes are all there now; `locked`: another session works on it; `moved`:
       * it is no longer in that state (or gone); `stays`: its state has no edge to failure.
       */
      reason: 'usable' | 'locked' | 'moved' | 'stays';
    };

/**
 * Fails a job that is still without a node it needs (`status`, `bid` or `configuration`: see
 * loadJob) after waiting for it: nothing would ever run it, and its batch would never report.
 * The event is the one its state fails with (JobLifecycle.failureEvent: Merritt's `fail()` edge),
 * with a message naming the node; the machine decides the target. Written in one multi under the
 * job's lock, with what can be read of the job: the status node is created when it is the one
 * missing, and the batch's folders are moved when `bid` names a batch that lists the job.
 * Requeued as usual once someone has written the node.
 */
export async function failIncompleteJob(
  ctx: QueueContext,
  jid: string,
  state: string,
  waitedMs: number,
): Promise<IncompleteOutcome> {
  const event = ctx.lifecycle.failureEvent(state);
  if (event === undefined) return { failed: false, reason: 'stays' };
  // A job whose status names another state now (failed already, moved on) is not locked at all:
  // a stale listing may have noted it again, and its lock, however brief, would refuse an
  // operator mending it (a requeue answered LOCK_HELD).
  if (await statusElsewhere(ctx, jid, state)) return { failed: false, reason: 'moved' };
  const attempt = await tryLock(ctx, jobPath(jid));
  if (!attempt.held) return { failed: false, reason: attempt.reason === 'locked' ? 'locked' : 'moved' };
  const { lock } = attempt;
  const outcome = await releasingOnError(ctx, lock, () => failLocked(ctx, jid, state, event, waitedMs, lock));
  if (!outcome.failed) await releaseEventually(ctx, lock);
  return outcome;
}

async function failLocked(
  ctx: QueueContext,
  jid: string,
  state: string,
  event: string,
  waitedMs: number,
  lock: HeldLock,
): Promise<IncompleteOutcome> {
  const missing = await missingNode(ctx, jid);
  if (missing === undefined) return { failed: false, reason: 'usable' };
  const ref = await findRefIn(ctx, jobStateFolder(state), jid);
  if (ref === undefined) return { failed: false, reason: 'moved' };
  const [statusNode, bidNode] = await ctx.zk.getDataMany([jobChild(jid, 'status'), jobChild(jid, 'bid')]);
  const written = bidNode?.data ? decodeText(bidNode.data) : '';
  // Without its bid the job is still one of a batch: the one whose folders hold it. Found, its
  // bid is written back with the failure, so its batch counts it (and finishes) and every
  // reader can read the job again.
  const holder =
    written === '' ? await batchHolding(ctx, jid, ctx.lifecycle.batchFolderOf(state)) : undefined;
  const batchId = written || (holder ?? '');
  const stored: StoredJob = {
    ...storedStatus(ctx, jid, statusNode?.data),
    status: state,
    jobId: jid,
    batchId,
    priority: parseRefName(basename(ref))?.priority ?? 0,
    spaceNeeded: 0,
  };
  const restored =
    holder === undefined ? '' : `; its bid was written back as ${holder}, the batch that holds it`;
  const message =
    `${missing} is missing: nothing can run job ${jid} without it (waited ${Math.round(waitedMs / 1000)} s ` +
    `for it to be written)${restored}; write it, then requeue the job`;
  const result = ctx.lifecycle.next(stored, { type: event, message } as { type: string });
  if (!result.ok) throw new QueueError('INVALID_TRANSITION', `job ${jid}: ${result.message}`, jobPath(jid));
  const next = { ...stored, ...result.context, status: result.to };
  const ops: Op[] = [
    { op: 'check', path: lock.path },
    statusNode
      ? {
          op: 'set',
          path: jobChild(jid, 'status'),
          data: encodeJobStatus(next, ctx.now(), ctx.lifecycle),
          version: statusNode.stat.version,
        }
      : {
          op: 'create',
          path: jobChild(jid, 'status'),
          data: encodeJobStatus(next, ctx.now(), ctx.lifecycle),
        },
    { op: 'delete', path: ref },
    { op: 'create', path: jobRef(next.status, next.priority, jid) },
    ...(holder === undefined
      ? []
      : [
          bidNode
            ? { op: 'set' as const, path: jobChild(jid, 'bid'), data: holder }
            : { op: 'create' as const, path: jobChild(jid, 'bid'), data: holder },
        ]),
    ...(await batchMoves(ctx, batchId, jid, state, next.status)),
    { op: 'delete', path: lock.path },
  ];
  await ctx.zk.multi(ops);
  ctx.log.error({ jobId: jid, state, to: next.status }, `job ${jid} failed: ${message}`);
  return { failed: true, message };
}

/** Batches asked at once while looking for the one that holds a job. */
const HOLDER_SCAN_BATCH = 64;

/**
 * The batch whose `folder` holds `jid`, for a job whose `bid` node is gone: every batch is
 * asked, 64 at a time (a rare repair: one request per batch, once per such job).
 */
export async function batchHolding(
  ctx: QueueContext,
  jid: string,
  folder: BatchFolder,
): Promise<string | undefined> {
  const bids = (await ctx.zk.getChildren(BATCHES)).filter((name) => name.startsWith('bid'));
  for (let i = 0; i < bids.length; i += HOLDER_SCAN_BATCH) {
    const chunk = bids.slice(i, i + HOLDER_SCAN_BATCH);
    const found = await Promise.all(chunk.map((bid) => ctx.zk.exists(batchRef(bid, folder, jid))));
    const at = found.findIndex((stat) => stat !== undefined);
    if (at >= 0) return chunk[at];
  }
  return undefined;
}

/** True when the job's status node reads as a state other than `state` (one unlocked read). */
async function statusElsewhere(ctx: QueueContext, jid: string, state: string): Promise<boolean> {
  const [statusNode] = await ctx.zk.getDataMany([jobChild(jid, 'status')]);
  if (!statusNode) return false; // the missing node may be this one
  try {
    return decodeJobStatus(jobChild(jid, 'status'), statusNode.data, ctx.lifecycle).status !== state;
  } catch {
    return false; // unreadable: failed under the lock, naming it, as before
  }
}

/** The node loadJob finds missing, or undefined when the job reads whole now (or has other trouble). */
async function missingNode(ctx: QueueContext, jid: string): Promise<string | undefined> {
  try {
    await loadJob(ctx, jid);
    return undefined;
  } catch (err) {
    if (isQueueError(err) && err.incomplete) return err.message.replace(/ is missing$/, '');
    if (isQueueError(err) && (err.code === 'ITEM_INVALID' || err.code === 'NOT_FOUND')) return undefined;
    throw err;
  }
}

/** What the status node says of retries and the last success, when it can be read. */
function storedStatus(
  ctx: QueueContext,
  jid: string,
  data: Buffer | undefined,
): Pick<StoredJob, 'lastSuccessfulStatus' | 'retryCount' | 'message'> {
  try {
    const status = decodeJobStatus(jobChild(jid, 'status'), data, ctx.lifecycle);
    return {
      lastSuccessfulStatus: status.lastSuccessfulStatus,
      retryCount: status.retryCount,
      message: null,
    };
  } catch {
    return { lastSuccessfulStatus: null, retryCount: 0, message: null };
  }
}

/** The job's entry in its batch's folders moved with it, when its batch lists it where expected. */
async function batchMoves(
  ctx: QueueContext,
  bid: string,
  jid: string,
  from: string,
  to: string,
): Promise<Op[]> {
  const fromFolder = ctx.lifecycle.batchFolderOf(from);
  const toFolder = ctx.lifecycle.batchFolderOf(to);
  if (bid === '' || fromFolder === toFolder) return [];
  const [listed, already, batch] = await Promise.all([
    ctx.zk.exists(batchRef(bid, fromFolder, jid)),
    ctx.zk.exists(batchRef(bid, toFolder, jid)),
    ctx.zk.exists(batchPath(bid)),
  ]);
  if (!batch) return [];
  // Batches written by other tools may lack the folder, as commitJobTransition finds too.
  if (!already) await ctx.zk.mkdirp(batchFolderPath(bid, toFolder));
  return [
    ...(listed ? [{ op: 'delete' as const, path: batchRef(bid, fromFolder, jid) }] : []),
    ...(already ? [] : [{ op: 'create' as const, path: batchRef(bid, toFolder, jid) }]),
  ];
}
