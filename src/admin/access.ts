import {
  accessStateTable,
  cleanedUpStates,
  type AccessEvent,
  type AccessQueue,
} from '../../machines/index.js';
import { isZkError, type Op } from '../zk/index.js';
import { commitAccessTransition, loadAccess, type AccessRecord } from '../queue/access/requests.js';
import {
  ACCESS_QUEUE_NAMES,
  listAccess,
  resolveAccess,
  type AccessSummary,
} from '../views/listing/access.js';
import { takeLockForAdmin, type AdminOptions } from './lock.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { CleanupSkip } from '../doctor/orphans.js';
import { QueueError } from '../queue/tree/errors.js';
import { releaseEventually } from '../queue/locks/lock.js';
import { accessPath } from '../queue/tree/paths.js';
import { parseTimestamp } from '../queue/tree/timestamps.js';

/**
 * Operator actions on access requests, as mrt-admin offers them (merritt-protocols.md §6):
 * requeue a failed request (back to pending), delete a failed or completed one, and clean up
 * completed and deleted requests. Each is checked by the access machine and written under the
 * request's lock with its expected status version, like every other access transition.
 */

async function withRequest(
  ctx: QueueContext,
  ref: string,
  event: AccessEvent,
  options: AdminOptions,
): Promise<AccessRecord> {
  const { queue, qid } = await resolveAccess(ctx, ref);
  const lock = await takeLockForAdmin(ctx, accessPath(queue, qid), options);
  try {
    const request = await loadAccess(ctx, queue, qid);
    const next = await commitAccessTransition(ctx, { request, lock }, event, { release: true });
    ctx.log.info(
      { accessId: qid, queue, event: event.type, to: next.status },
      'access request changed by operator',
    );
    return next;
  } catch (err) {
    await releaseEventually(ctx, lock);
    throw err;
  }
}

/**
 * Requeues a failed access request: back to pending (mrt-admin's Requeue), so the next consumer
 * of its queue, this engine's or Merritt's storage service, assembles it again.
 */
export const requeueAccess = (
  ctx: QueueContext,
  ref: string,
  options: AdminOptions = {},
): Promise<AccessRecord> => withRequest(ctx, ref, { type: 'admin.requeue' }, options);

/** Deletes a failed or completed access request (→ deleted; cleanup removes its nodes later). */
export const deleteAccess = (
  ctx: QueueContext,
  ref: string,
  options: AdminOptions = {},
): Promise<AccessRecord> => withRequest(ctx, ref, { type: 'admin.delete' }, options);

export interface AccessCleanupOptions {
  /** Completed and deleted requests last modified longer ago than this are removed. */
  retentionMs: number;
  /** Report what would be removed, write nothing. */
  dryRun?: boolean;
}

/** A request cleanup removed (or, in a dry run, would remove). */
export interface RemovedAccess {
  queue: AccessQueue;
  qid: string;
  status: string;
  lastModified: string;
}

export interface AccessCleanupReport {
  dryRun: boolean;
  removed: RemovedAccess[];
  skipped: CleanupSkip[];
}

/** The access states cleanup removes requests in (the table's `cleanedUp` rows: completed, deleted). */
const REMOVABLE = cleanedUpStates(accessStateTable);

/** Whether a request may go: completed or deleted, not locked, and old enough. */
function isRemovable(item: AccessSummary, cutoff: number): boolean {
  if (!REMOVABLE.has(item.status)) return false;
  if (item.locked) return false;
  const modified = parseTimestamp(item.lastModified)?.getTime();
  return modified !== undefined && modified <= cutoff;
}

/**
 * Removes one request in a single multi: its children, then its id node. The status is checked
 * at the version just read, so a request requeued or deleted meanwhile is left alone, and a lock
 * created meanwhile makes the id node's delete fail (not empty): nothing is removed then.
 */
async function removeRequest(
  ctx: QueueContext,
  queue: AccessQueue,
  qid: string,
): Promise<string | undefined> {
  const path = accessPath(queue, qid);
  const request = await loadAccess(ctx, queue, qid);
  if (!REMOVABLE.has(request.status)) return `it is ${request.status} now`;
  const children = await ctx.zk.getChildren(path);
  const ops: Op[] = [
    { op: 'check', path: `${path}/status`, version: request.statusVersion },
    ...children.map((child): Op => ({ op: 'delete', path: `${path}/${child}` })),
    { op: 'delete', path },
  ];
  try {
    await ctx.zk.multi(ops);
    return undefined;
  } catch (err) {
    if (isZkError(err)) return `it changed while being removed (${err.message}); run cleanup again`;
    throw err;
  }
}

/**
 * Removes completed and deleted access requests older than the retention, as mrt-admin's
 * "cleanup access queue" does (it keeps none; here the retention decides). A locked request,
 * or one whose age cannot be read, stays.
 */
export async function cleanupAccess(
  ctx: QueueContext,
  options: AccessCleanupOptions,
): Promise<AccessCleanupReport> {
  const dryRun = options.dryRun ?? false;
  const cutoff = ctx.now().getTime() - options.retentionMs;
  const removed: RemovedAccess[] = [];
  const skipped: CleanupSkip[] = [];
  for (const queue of ACCESS_QUEUE_NAMES) {
    const { items } = await listAccess(ctx, { queue }, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
    for (const item of items.filter((candidate) => isRemovable(candidate, cutoff))) {
      const entry = { queue, qid: item.qid, status: item.status, lastModified: item.lastModified };
      const reason = dryRun ? undefined : await removeRequest(ctx, queue, item.qid).catch(skipReason);
      if (reason === undefined) removed.push(entry);
      else skipped.push({ item: `${queue}/${item.qid}`, path: accessPath(queue, item.qid), reason });
    }
  }
  ctx.log.info({ dryRun, removed: removed.length, skipped: skipped.length }, 'access cleanup finished');
  return { dryRun, removed, skipped };
}

function skipReason(err: unknown): string {
  if (err instanceof QueueError) return err.message;
  throw err;
}
