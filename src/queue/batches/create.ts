import { newBatchState } from '../../../machines/index.js';
import { isZkError, ZkTransactionError } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { BATCHES, BATCH_PREFIX, batchChild, batchPath, batchUuidPath } from '../tree/paths.js';
import type { Submission } from '../tree/records.js';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import { withSpan } from '../../telemetry/span.js';
import { activeTraceparent } from '../../telemetry/trace-context.js';
import { checkSafeId } from '../tree/safe-id.js';
import { decodeJsonObject, decodeText, encodeBatchStatus, encodeJson } from '../tree/wire.js';

export interface CreatedBatch {
  bid: string;
  /** False when the same submission under the same uuid already existed and was returned instead. */
  created: boolean;
}

export interface CreateOptions {
  /**
   * Runs once the uuid is found unclaimed, just before the batch is created: an upload stores its
   * payload here, so a submission under a uuid already taken never writes anything.
   */
  beforeCreate?: () => Promise<void>;
}

/** Keys stamped per request, not chosen by the submitter: a retry may differ in them. */
const REQUEST_STAMPS = new Set(['submissionDate', 'traceparent']);

async function batchOfUuid(ctx: QueueContext, uuid: string): Promise<string | undefined> {
  try {
    const { data } = await ctx.zk.getData(batchUuidPath(uuid));
    return decodeText(data) || undefined;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/** The submission keys in which `incoming` differs from `stored` (request stamps aside). */
function differingKeys(stored: Record<string, unknown>, incoming: Submission): string[] {
  const keys = new Set([...Object.keys(stored), ...Object.keys(incoming)]);
  return [...keys]
    .filter((key) => !REQUEST_STAMPS.has(key))
    .filter((key) => JSON.stringify(stored[key]) !== JSON.stringify(incoming[key]))
    .sort();
}

/**
 * The batch `uuid` already names, when it names one: returned when it was submitted with the same
 * submission, CONFLICT naming it and what differs otherwise. Either way it is left as it was.
 */
async function claimedBatch(
  ctx: QueueContext,
  uuid: string,
  incoming: Submission,
): Promise<CreatedBatch | undefined> {
  const bid = await batchOfUuid(ctx, uuid);
  if (!bid) return undefined;
  const path = batchChild(bid, 'submission');
  let reason: string;
  try {
    const differs = differingKeys(decodeJsonObject(path, (await ctx.zk.getData(path)).data), incoming);
    if (differs.length === 0) return { bid, created: false };
    reason = `submitted with another ${differs.join(', ')}`;
  } catch (err) {
    if (!isZkError(err, 'NO_NODE') && !(err instanceof QueueError)) throw err;
    reason = `whose submission cannot be compared: ${(err as Error).message}`;
  }
  throw new QueueError(
    'CONFLICT',
    `uuid "${uuid}" already names batch ${bid}, ${reason}; that batch is left as it was ` +
      '(submit under a new uuid)',
    bid,
  );
}

/**
 * Creates `/batches/bidN` with its submission and Pending status, and `/batch-uuids/<uuid>`.
 * The id node is created first (sequential), then everything else in one multi, so a crash
 * leaves at most an empty id node. The uuid node is the claim: a submission under a claimed
 * uuid returns that batch when it is the same submission (a retry) and is refused with CONFLICT
 * otherwise; the claimed batch is never changed. The uuid and collection are checked before any
 * use (BAD_REQUEST). Runs in a `batch submit` span whose context is stored with the batch
 * (`traceparent`).
 */
export function createBatch(
  ctx: QueueContext,
  submission: Submission,
  options: CreateOptions = {},
): Promise<CreatedBatch> {
  const attributes = {
    [Attr.batchUuid]: typeof submission.batchID === 'string' ? submission.batchID : '',
    [Attr.profile]: submission.profile_name,
    [Attr.submitter]: submission.submitter,
  };
  return withSpan(SpanName.submit, attributes, async (span) => {
    // The batch's trace: expansion, every job's steps and the report continue it.
    const traceparent = activeTraceparent();
    const created = await create(ctx, traceparent ? { ...submission, traceparent } : submission, options);
    span.setAttribute(Attr.batchId, created.bid);
    return created;
  });
}

async function create(
  ctx: QueueContext,
  submission: Submission,
  options: CreateOptions,
): Promise<CreatedBatch> {
  const uuid =
    typeof submission.batchID === 'string' && submission.batchID !== '' ? submission.batchID : undefined;
  if (uuid !== undefined) checkSafeId('batchID', uuid);
  if (typeof submission.collection === 'string') checkSafeId('collection', submission.collection);
  if (uuid) {
    const existing = await claimedBatch(ctx, uuid, submission);
    if (existing) return existing;
  }
  await options.beforeCreate?.();
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
      const winner = await claimedBatch(ctx, uuid, submission);
      if (winner) return winner;
    }
    throw err;
  }
  ctx.log.info({ batchId: bid, uuid, profile: submission.profile_name }, 'batch created');
  return { bid, created: true };
}
