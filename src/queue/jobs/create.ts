import { merrittJobLifecycle, type JobLifecycle, BATCH_FOLDERS } from '../../../machines/index.js';
import { basename, isZkError, type Op } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { isQueueError } from '../tree/errors.js';
import { listBatchJobs } from '../batches/jobs.js';
import {
  JOBS,
  JOB_PREFIX,
  batchFolderPath,
  batchRef,
  clampPriority,
  jobChild,
  jobRef,
} from '../tree/paths.js';
import type { JobConfiguration, JobIdentifiers, JobInventory, JobMetadata } from '../tree/records.js';
import { decodeJsonObject, encodeJobStatus, encodeJson, encodeText } from '../tree/wire.js';
import { activeTraceparent } from '../../telemetry/trace-context.js';

/** One object of a batch, to become one job. */
export interface JobSpec {
  /** Position of the object in the batch's manifest (0-based): the job's key within its batch. */
  position: number;
  configuration: JobConfiguration;
  priority?: number;
  identifiers?: JobIdentifiers;
  metadata?: JobMetadata;
  inventory?: JobInventory;
  /** The job can never run (digest mismatch, corrupt entry): it is created failed with this message. */
  rejected?: string;
}

export interface CreatedJob {
  jid: string;
  position: number;
  status: string;
}

export interface CreateJobsResult {
  created: CreatedJob[];
  /** Specs skipped because their position already has a job (a re-run after a crash). */
  skipped: number;
  /** Multis sent (one per chunk). */
  multis: number;
}

/** Limits per multi: ZooKeeper drops requests over ~1 MB (DESIGN.md §6), so stay well below. */
export interface ChunkLimits {
  maxBytes: number;
  maxOps: number;
}
const DEFAULT_LIMITS: ChunkLimits = { maxBytes: 256 * 1024, maxOps: 2000 };

function jobOps(
  lifecycle: JobLifecycle,
  bid: string,
  jid: string,
  spec: JobSpec,
  now: Date,
  traceparent?: string,
): { ops: Op[]; status: string } {
  const event = spec.rejected
    ? { type: 'job.rejected' as const, message: spec.rejected }
    : { type: 'job.created' as const };
  const { to, context } = lifecycle.newState({ jobId: jid, batchId: bid, priority: spec.priority }, event);
  const configuration: JobConfiguration = { ...spec.configuration, manifest_position: spec.position };
  if (traceparent) configuration.traceparent = traceparent;
  const ops: Op[] = [
    { op: 'create', path: jobChild(jid, 'bid'), data: encodeText(bid) },
    { op: 'create', path: jobChild(jid, 'configuration'), data: encodeJson(configuration) },
    {
      op: 'create',
      path: jobChild(jid, 'status'),
      data: encodeJobStatus({ status: to, ...context }, now, lifecycle),
    },
    { op: 'create', path: jobChild(jid, 'priority'), data: encodeText(clampPriority(context.priority)) },
    { op: 'create', path: jobChild(jid, 'space_needed'), data: encodeText(context.spaceNeeded) },
  ];
  if (spec.identifiers)
    ops.push({ op: 'create', path: jobChild(jid, 'identifiers'), data: encodeJson(spec.identifiers) });
  if (spec.metadata)
    ops.push({ op: 'create', path: jobChild(jid, 'metadata'), data: encodeJson(spec.metadata) });
  if (spec.inventory)
    ops.push({ op: 'create', path: jobChild(jid, 'inventory'), data: encodeJson(spec.inventory) });
  ops.push({ op: 'create', path: jobRef(to, context.priority, jid) });
  ops.push({ op: 'create', path: batchRef(bid, lifecycle.batchFolderOf(to), jid) });
  return { ops, status: to };
}

function opBytes(op: Op): number {
  const data = 'data' in op && op.data ? Buffer.byteLength(op.data) : 0;
  return op.path.length + data + 64;
}

const SAMPLE_TRACEPARENT = `00-${'1'.repeat(32)}-${'1'.repeat(16)}-01`;

/** Groups specs so each group's multi stays under the limits (a single huge job still gets its own multi). */
function chunk(specs: JobSpec[], limits: ChunkLimits): JobSpec[][] {
  const chunks: JobSpec[][] = [];
  let current: JobSpec[] = [];
  let bytes = 0;
  let ops = 0;
  for (const spec of specs) {
    // Sizes only: every lifecycle writes the same nodes at creation.
    const sample = jobOps(
      merrittJobLifecycle,
      'bid0000000000',
      'jid0000000000',
      spec,
      new Date(0),
      SAMPLE_TRACEPARENT,
    ).ops;
    const specBytes = sample.reduce((sum, op) => sum + opBytes(op), 0);
    if (current.length > 0 && (bytes + specBytes > limits.maxBytes || ops + sample.length > limits.maxOps)) {
      chunks.push(current);
      current = [];
      bytes = 0;
      ops = 0;
    }
    current.push(spec);
    bytes += specBytes;
    ops += sample.length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Manifest positions that already have a job in this batch (from an earlier, interrupted run). */
async function existingPositions(ctx: QueueContext, bid: string): Promise<Set<number>> {
  const jids = await listBatchJobs(ctx, bid);
  const positions = await Promise.all(
    jids.map(async ({ jid }) => {
      const path = jobChild(jid, 'configuration');
      try {
        const { data } = await ctx.zk.getData(path);
        return decodeJsonObject(path, data).manifest_position;
      } catch (err) {
        // A lost or timed-out read says nothing about the job: creating its position again
        // would make a second job for it. Only a job that is not there or cannot be decoded
        // is not one of ours from an earlier run (doctor reports it).
        if (!isQueueError(err) && !isZkError(err, 'NO_NODE')) throw err;
        ctx.log.warn(
          { err, batchId: bid, jobId: jid },
          'unreadable job configuration while resuming expansion',
        );
        return undefined;
      }
    }),
  );
  return new Set(positions.filter((p): p is number => typeof p === 'number'));
}

/**
 * Creates the jobs of a batch. Each job (its data nodes and both refs) appears in one multi
 * with the rest of its chunk, so no consumer ever sees half a job; the chunk's sequential id
 * nodes are created just before in one multi, so a crash leaves at most empty id nodes (cleanup
 * removes them).
 * Positions that already have a job are skipped, so re-running after a crash creates nothing twice.
 */
export async function createJobs(
  ctx: QueueContext,
  bid: string,
  specs: JobSpec[],
  limits: ChunkLimits = DEFAULT_LIMITS,
): Promise<CreateJobsResult> {
  await Promise.all(BATCH_FOLDERS.map((folder) => ctx.zk.mkdirp(batchFolderPath(bid, folder))));
  const done = await existingPositions(ctx, bid);
  const todo = specs.filter((spec) => !done.has(spec.position));
  const created: CreatedJob[] = [];
  const chunks = chunk(todo, limits);
  // Each job's steps continue the trace of the span creating it (the batch's expansion).
  const traceparent = activeTraceparent();
  for (const group of chunks) {
    // The chunk's id nodes in one multi of sequential creates (all or none), then its jobs.
    const ids = await ctx.zk.multi(
      group.map(() => ({
        op: 'create' as const,
        path: `${JOBS}/${JOB_PREFIX}`,
        mode: 'persistent_sequential' as const,
      })),
    );
    const now = ctx.now();
    const ops: Op[] = [];
    group.forEach((spec, i) => {
      const jid = basename(ids[i]?.createdPath ?? '');
      if (!jid.startsWith(JOB_PREFIX))
        throw new Error(`multi created no job id node for position ${spec.position}`);
      const built = jobOps(ctx.lifecycle, bid, jid, spec, now, traceparent);
      ops.push(...built.ops);
      created.push({ jid, position: spec.position, status: built.status });
    });
    await ctx.zk.multi(ops);
  }
  ctx.log.info(
    { batchId: bid, created: created.length, skipped: specs.length - todo.length },
    'jobs created',
  );
  return { created, skipped: specs.length - todo.length, multis: chunks.length };
}
