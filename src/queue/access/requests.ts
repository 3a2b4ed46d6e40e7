import {
  accessWireNames,
  newAccessState,
  nextAccessState,
  parseAccessState,
  type AccessEvent,
  type AccessQueue,
  type StoredAccess,
  accessRoles,
} from '../../../machines/index.js';
import { isZkError, ZkTransactionError } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { isQueueError, QueueError } from '../tree/errors.js';
import {
  assertSameSession,
  releaseEventually,
  releasingOnError,
  tryLock,
  type HeldLock,
} from '../locks/lock.js';
import { ACCESS_PREFIX, accessPath, accessQueuePath } from '../tree/paths.js';
import { formatTimestamp } from '../tree/timestamps.js';
import { decodeJsonObject, encodeJson } from '../tree/wire.js';

/**
 * The access (assembly) queue of seed 002: `/access/{small,large}/qidN/{token,status,lock}`.
 * Same rules as jobs and batches: created complete in one multi, acquired with an ephemeral
 * lock, every status change validated by the access machine and written with its expected version.
 */

export interface AccessRecord extends StoredAccess {
  statusVersion: number;
  lastModified: string;
  /** `token` JSON: token, delivery-node, cloud-content-byte, status, url, anticipated-availability-time… */
  token: Record<string, unknown>;
}

export interface AcquiredAccess {
  request: AccessRecord;
  lock: HeldLock;
}

function encodeStatus(record: Pick<AccessRecord, 'status' | 'message'>, now: Date): Buffer {
  const data: Record<string, unknown> = {
    status: accessWireNames[record.status],
    last_modified: formatTimestamp(now),
  };
  if (record.message) data.message = record.message;
  return encodeJson(data);
}

/** Queues an access request; the id node first, then token and status in one multi. */
export async function createAccess(
  ctx: QueueContext,
  queue: AccessQueue,
  token: Record<string, unknown>,
): Promise<string> {
  const created = await ctx.zk.create(
    `${accessQueuePath(queue)}/${ACCESS_PREFIX}`,
    null,
    'persistent_sequential',
  );
  const qid = created.slice(created.lastIndexOf('/') + 1);
  const initial = newAccessState({ accessId: qid, queue });
  await ctx.zk.multi([
    { op: 'create', path: `${accessPath(queue, qid)}/token`, data: encodeJson(token) },
    {
      op: 'create',
      path: `${accessPath(queue, qid)}/status`,
      data: encodeStatus({ status: initial.to, message: null }, ctx.now()),
    },
  ]);
  return qid;
}

/** Reads an access request: NOT_FOUND or ITEM_INVALID naming the node. */
export async function loadAccess(ctx: QueueContext, queue: AccessQueue, qid: string): Promise<AccessRecord> {
  const base = accessPath(queue, qid);
  const read = async (key: string) => {
    try {
      return await ctx.zk.getData(`${base}/${key}`);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return undefined;
      throw err;
    }
  };
  const [status, token] = await Promise.all([read('status'), read('token')]);
  if (!status || !token) {
    if (!(await ctx.zk.exists(base))) throw new QueueError('NOT_FOUND', `${base} does not exist`, base);
    // Merritt's Java library writes the id node, then the token, then the status, in three calls.
    const missing = status ? 'token' : 'status';
    throw new QueueError('ITEM_INVALID', `${base}/${missing} is missing`, base, { incomplete: true });
  }
  const json = decodeJsonObject(`${base}/status`, status.data);
  const state = typeof json.status === 'string' ? parseAccessState(json.status) : undefined;
  if (!state)
    throw new QueueError(
      'ITEM_INVALID',
      `${base}/status has unknown status ${JSON.stringify(json.status)}`,
      base,
    );
  return {
    accessId: qid,
    queue,
    status: state,
    message: typeof json.message === 'string' && json.message ? json.message : null,
    lastModified: typeof json.last_modified === 'string' ? json.last_modified : '',
    statusVersion: status.stat.version,
    token: token.data?.length ? decodeJsonObject(`${base}/token`, token.data) : {},
  };
}

export interface AccessAcquireOptions {
  /** Request ids to try, in order (e.g. from a children$ stream); all of the queue's when absent. */
  candidates?: readonly string[];
  /** Skip these ids without reading them (worked on here, locked elsewhere, waiting for a change). */
  skip?: (qid: string) => boolean;
  /** Called for each request that cannot be used (incomplete or unreadable); acquire goes on. */
  onInvalid?: (qid: string, error: QueueError) => void;
  /** Called for each request skipped because another session holds its lock. */
  onLocked?: (qid: string) => void;
}

async function loadUsable(
  ctx: QueueContext,
  queue: AccessQueue,
  qid: string,
  options: AccessAcquireOptions,
): Promise<AccessRecord | undefined> {
  try {
    return await loadAccess(ctx, queue, qid);
  } catch (err) {
    if (!isQueueError(err)) throw err;
    if (err.code === 'ITEM_INVALID') options.onInvalid?.(qid, err);
    return undefined;
  }
}

/** Pending requests, and processing ones whose worker died (their lock is free). */
const takeable = (status: string | undefined): boolean =>
  status === accessRoles.initial || status === accessRoles.processing;

/**
 * Takes the first pending access request (in id order) of a queue whose lock this session can
 * create, or a processing one whose worker died (its lock is gone). The status is read before
 * locking (no lock churn on finished requests) and again after. A request whose nodes are not
 * all written yet is reported through `onInvalid` (its error `incomplete`) and skipped.
 */
export async function acquireAccess(
  ctx: QueueContext,
  queue: AccessQueue,
  options: AccessAcquireOptions = {},
): Promise<AcquiredAccess | undefined> {
  const ids = [...(options.candidates ?? (await ctx.zk.getChildren(accessQueuePath(queue))))]
    .filter((n) => n.startsWith(ACCESS_PREFIX))
    .sort();
  for (const qid of ids) {
    if (options.skip?.(qid)) continue;
    if (!takeable((await loadUsable(ctx, queue, qid, options))?.status)) continue;
    const attempt = await tryLock(ctx, accessPath(queue, qid));
    if (!attempt.held) {
      if (attempt.reason === 'locked') options.onLocked?.(qid);
      continue;
    }
    const lock = attempt.lock;
    const request = await releasingOnError(ctx, lock, () => loadUsable(ctx, queue, qid, options));
    if (takeable(request?.status)) return { request: request!, lock };
    await releaseEventually(ctx, lock);
  }
  return undefined;
}

/** Commits `event` for a locked access request in one multi (lock check, versioned status, optional release). */
export async function commitAccessTransition(
  ctx: QueueContext,
  acquired: AcquiredAccess,
  event: AccessEvent,
  options: { release?: boolean; token?: Record<string, unknown> } = {},
): Promise<AccessRecord> {
  const { request, lock } = acquired;
  const base = accessPath(request.queue, request.accessId);
  const result = nextAccessState(request, event);
  if (!result.ok)
    throw new QueueError('INVALID_TRANSITION', `access request ${request.accessId}: ${result.message}`, base);
  assertSameSession(ctx, lock);
  const next: AccessRecord = {
    ...request,
    ...result.context,
    status: result.to,
    statusVersion: request.statusVersion + 1,
  };
  const now = ctx.now();
  try {
    await ctx.zk.multi([
      { op: 'check', path: lock.path },
      { op: 'set', path: `${base}/status`, data: encodeStatus(next, now), version: request.statusVersion },
      ...(options.token
        ? [{ op: 'set' as const, path: `${base}/token`, data: encodeJson(options.token) }]
        : []),
      ...((options.release ?? true) ? [{ op: 'delete' as const, path: lock.path }] : []),
    ]);
  } catch (err) {
    if (err instanceof ZkTransactionError && err.failedOp.path === lock.path) {
      throw new QueueError(
        'LOCK_LOST',
        `access request ${request.accessId}: lock is gone; nothing committed`,
        base,
        { cause: err },
      );
    }
    if (err instanceof ZkTransactionError && err.kind === 'BAD_VERSION') {
      throw new QueueError(
        'CONFLICT',
        `access request ${request.accessId}: status changed; nothing committed`,
        base,
        { cause: err },
      );
    }
    throw err;
  }
  ctx.log.info(
    { accessId: request.accessId, queue: request.queue, from: request.status, to: next.status },
    'transition',
  );
  return { ...next, lastModified: formatTimestamp(now) };
}
