import { newBatchState } from '../../machines/index.js';
import { isZkError, ZkTransactionError } from '../zk/index.js';
import type { QueueContext } from './context.js';
import { QueueError } from './errors.js';
import { BATCHES, BATCH_PREFIX, batchChild, batchPath, batchUuidPath } from './paths.js';
import type { Submission } from './records.js';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { withSpan } from '../telemetry/span.js';
import { activeTraceparent } from '../telemetry/trace-context.js';
import { decodeText, encodeBatchStatus, encodeJson } from './wire.js';

export interface CreatedBatch {
  bid: string;
  /** False when a batch with the same uuid already existed and was returned instead. */
  created: boolean;
}

async function batchOfUuid(ctx: QueueContext, uuid: string): Promise<string | undefined> {
  try {
    const { data } = await ctx.zk.getData(batchUuidPath(uuid));
    return decodeText(data) || undefined;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

function validUuid(uuid: string): boolean {
  return /^[A-Za-z0-9._-]{1,200}$/.test(uuid);
}

/**
 * Creates `/batches/bidN` with its submission and Pending status, and `/batch-uuids/<uuid>`.
 * The id node is created first (sequential), then everything else in one multi, so a crash
 * leaves at most an empty id node. Submitting the same uuid twice returns the first batch.
 * Runs in a `batch submit` span whose context is stored with the batch (`traceparent`).
 */
export function createBatch(ctx: QueueContext, submission: Submission): Promise<CreatedBatch> {
  const attributes = {
    [Attr.batchUuid]: typeof submission.batchID === 'string' ? submission.batchID : '',
    [Attr.profile]: submission.profile_name,
    [Attr.submitter]: submission.submitter,
  };
  return withSpan(SpanName.submit, attributes, async (span) => {
    // The batch's trace: expansion, every job's steps and the report continue it.
    const traceparent = activeTraceparent();
    const created = await create(ctx, traceparent ? { ...submission, traceparent } : submission);
    span.setAttribute(Attr.batchId, created.bid);
    return created;
  });
}

async function create(ctx: QueueContext, submission: Submission): Promise<CreatedBatch> {
  const uuid =
    typeof submission.batchID === 'string' && submission.batchID !== '' ? submission.batchID : undefined;
  if (uuid !== undefined && !validUuid(uuid)) {
    throw new QueueError('BAD_REQUEST', `batchID "${uuid}" is not a valid uuid (letters, digits, . _ -)`);
  }
  if (uuid) {
    const existing = await batchOfUuid(ctx, uuid);
    if (existing) return { bid: existing, created: false };
  }
  const created = await ctx.zk.create(`${BATCHES}/${BATCH_PREFIX}`, null, 'persistent_sequential');
  const bid = created.slice(created.lastIndexOf('/') + 1);
  const initial = newBatchState({ batchId: bid });
  try {
    await ctx.zk.multi([
      { op: 'create', path: batchChild(bid, 'submission'), data: encodeJson(submission) },
      {
        op: 'create',
        path: batchChild(bid, 'status'),
        data: encodeBatchStatus(
          { status: initial.to, message: null, expansion: 'foreign', jobCount: undefined },
          ctx.now(),
        ),
      },
      ...(uuid ? [{ op: 'create' as const, path: batchUuidPath(uuid), data: bid }] : []),
    ]);
  } catch (err) {
    if (
      uuid &&
      err instanceof ZkTransactionError &&
      err.kind === 'NODE_EXISTS' &&
      err.path === batchUuidPath(uuid)
    ) {
      // Another submitter won the race for this uuid: drop our empty id node and return theirs.
      await ctx.zk.deleteRecursive(batchPath(bid));
      const winner = await batchOfUuid(ctx, uuid);
      if (winner) return { bid: winner, created: false };
    }
    throw err;
  }
  ctx.log.info({ batchId: bid, uuid, profile: submission.profile_name }, 'batch created');
  return { bid, created: true };
}
