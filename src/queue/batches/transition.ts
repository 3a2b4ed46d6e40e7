import { nextBatchState, type BatchEvent, BATCH_FOLDERS, batchRoles } from '../../../machines/index.js';
import { ZkTransactionError, type Op } from '../../zk/index.js';
import type { AcquiredBatch } from './acquire.js';
import { batchTraceparent, type BatchRecord } from './load.js';
import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { assertSameSession } from '../locks/lock.js';
import { batchChild, batchFolderPath, batchPath } from '../tree/paths.js';
import type { StatusReport } from '../tree/records.js';
import { formatTimestamp } from '../tree/timestamps.js';
import { encodeStatusReport } from './status-report.js';
import { encodeBatchStatus } from '../tree/wire.js';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import { withSpan } from '../../telemetry/span.js';
import { activeTraceparent, parentContext } from '../../telemetry/trace-context.js';

export interface BatchCommitOptions {
  /** Delete the lock in the same multi (default true). */
  release?: boolean;
  /** Written with the transition (reporting). */
  report?: Omit<StatusReport, 'last_modified'>;
  /** Whether `/batches/BID/status-report` already exists (set instead of create). */
  hasReport?: boolean;
}

/** The status ops of a batch transition, for composing with other ops into one multi. */
export function batchTransitionOps(
  acquired: AcquiredBatch,
  next: BatchRecord,
  options: BatchCommitOptions,
  now: Date,
): Op[] {
  const { batch, lock } = acquired;
  const ops: Op[] = [
    { op: 'check', path: lock.path },
    {
      op: 'set',
      path: batchChild(batch.batchId, 'status'),
      data: encodeBatchStatus(next, now),
      version: batch.statusVersion,
    },
  ];
  if (!batch.hasStates && next.hasStates) {
    ops.push({ op: 'create', path: batchChild(batch.batchId, 'states') });
    for (const folder of BATCH_FOLDERS)
      ops.push({ op: 'create', path: batchFolderPath(batch.batchId, folder) });
  }
  if (options.report) {
    const { data } = encodeStatusReport({ last_modified: formatTimestamp(now), ...options.report });
    ops.push({
      op: options.hasReport ? 'set' : 'create',
      path: batchChild(batch.batchId, 'status-report'),
      data,
    });
  }
  if (options.release ?? true) ops.push({ op: 'delete', path: lock.path });
  return ops;
}

/** The batch after `event`, as the machine decides; INVALID_TRANSITION when it refuses. */
export function nextBatchRecord(batch: BatchRecord, event: BatchEvent): BatchRecord {
  const result = nextBatchState(batch, event);
  if (!result.ok)
    throw new QueueError(
      'INVALID_TRANSITION',
      `batch ${batch.batchId}: ${result.message}`,
      batchPath(batch.batchId),
    );
  return {
    ...batch,
    ...result.context,
    status: result.to,
    statusVersion: batch.statusVersion + 1,
    hasStates: batch.hasStates || result.to === batchRoles.processing,
    expansion: expansionAfter(batch, event),
  };
}

/** Acquiring starts this engine's expansion; `expand.done` finishes it; nothing else changes it. */
function expansionAfter(batch: BatchRecord, event: BatchEvent): BatchRecord['expansion'] {
  if (event.type === 'batch.acquired') return 'started';
  if (event.type === 'expand.done') return 'done';
  return batch.expansion;
}

/**
 * Commits `event` for a batch this session has locked, as one multi: check the lock, set the
 * status with its expected version, create `states` and its folders when the batch is first
 * acquired, write the status report, release the lock.
 */
export async function commitBatchTransition(
  ctx: QueueContext,
  acquired: AcquiredBatch,
  event: BatchEvent,
  options: BatchCommitOptions = {},
): Promise<BatchRecord> {
  const { batch } = acquired;
  const planned = nextBatchRecord(batch, event);
  const stored = batchTraceparent(batch);
  const attributes = {
    [Attr.batchId]: batch.batchId,
    [Attr.stateFrom]: batch.status,
    [Attr.stateTo]: planned.status,
    [Attr.event]: event.type,
  };
  return withSpan(
    SpanName.transition(batch.status),
    attributes,
    async () => {
      // A batch without trace context (another tool's) gets this span's, kept in its status.
      const traceparent = stored ? undefined : activeTraceparent();
      const next = traceparent ? { ...planned, traceparent } : planned;
      assertSameSession(ctx, acquired.lock);
      const now = ctx.now();
      try {
        await ctx.zk.multi(batchTransitionOps(acquired, next, options, now));
      } catch (err) {
        throw explainBatchFailure(acquired, event, err);
      }
      ctx.log.info(
        { batchId: batch.batchId, from: batch.status, to: next.status, event: event.type },
        'transition',
      );
      return { ...next, lastModified: formatTimestamp(now) };
    },
    { parent: parentContext(stored) },
  );
}

export function explainBatchFailure(acquired: AcquiredBatch, event: BatchEvent, err: unknown): unknown {
  if (!(err instanceof ZkTransactionError)) return err;
  const { batch, lock } = acquired;
  const what = `batch ${batch.batchId} ${batch.status} --${event.type}-->`;
  const item = batchPath(batch.batchId);
  if (err.failedOp.path === lock.path) {
    return new QueueError('LOCK_LOST', `${what}: lock ${lock.path} is gone; nothing committed`, item, {
      cause: err,
    });
  }
  if (err.kind === 'BAD_VERSION') {
    return new QueueError('CONFLICT', `${what}: status changed since it was read; nothing committed`, item, {
      cause: err,
    });
  }
  return new QueueError('ITEM_INVALID', `${what}: ${err.message}; nothing committed`, item, { cause: err });
}
