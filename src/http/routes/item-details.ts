import { batchTraceparent, loadBatch } from '../../queue/batches/load.js';
import { engineOfSession, listEngines, type EngineInfo } from '../../queue/tree/engines.js';
import { isQueueError } from '../../queue/tree/errors.js';
import type { ShownItem } from '../../views/listing/listing.js';
import { lockOwner } from '../../queue/locks/lock.js';
import { batchPath } from '../../queue/tree/paths.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { allowedBatchActions, allowedJobActions } from '../dashboard/allowed-actions.js';
import { traceLink } from '../dashboard/trace-link.js';
import { currentRetry } from '../../queue/jobs/retry-record.js';

type ShownJob = Extract<ShownItem, { kind: 'job' }>;
type ShownBatch = Extract<ShownItem, { kind: 'batch' }>;

/** Who holds an item's lock: the session, and the engine process of that session when registered. */
export interface LockHolder {
  sessionId: string;
  engine?: EngineInfo;
}

async function lockHolder(ctx: ApiContext, owner: string | undefined): Promise<{ lock?: LockHolder }> {
  if (owner === undefined) return {};
  const engine = engineOfSession(await listEngines(ctx.queue), owner);
  return { lock: engine ? { sessionId: owner, engine } : { sessionId: owner } };
}

function trace(ctx: ApiContext, traceparent: unknown) {
  const link = traceLink(ctx.jaegerUrl, traceparent);
  return link ? { trace: link } : {};
}

async function batchStatusOf(ctx: ApiContext, bid: string) {
  try {
    return (await loadBatch(ctx.queue, bid)).status;
  } catch (err) {
    if (isQueueError(err)) return undefined; // gone or unreadable: the job's own state decides
    throw err;
  }
}

async function jobDetails(ctx: ApiContext, item: ShownJob) {
  const [batchStatus, holder] = await Promise.all([
    // A job read without its bid node (bidMissing) has no batch to ask.
    item.job.batchId ? batchStatusOf(ctx, item.job.batchId) : undefined,
    lockHolder(ctx, item.lockOwner),
  ]);
  // Its step's failures in the state it is in, when it failed there: the wait, the class, the count.
  const retry = currentRetry(item.job.retry, item.job);
  const waiting = retry?.state === item.job.status && retry.next_attempt !== undefined;
  const allowed = allowedJobActions(item.job, batchStatus, ctx.queue.lifecycle);
  return {
    ...item,
    ...(retry ? { retry: { ...retry, waiting } } : {}),
    allowedActions: waiting ? [...allowed, 'retry'] : allowed,
    ...holder,
    ...trace(ctx, item.job.configuration.traceparent),
  };
}

async function batchDetails(ctx: ApiContext, item: ShownBatch) {
  const holder = await lockHolder(ctx, await lockOwner(ctx.queue, batchPath(item.batch.batchId)));
  return {
    ...item,
    allowedActions: allowedBatchActions(item.batch),
    ...holder,
    ...trace(ctx, batchTraceparent(item.batch)),
  };
}

function decorated(spec: RouteSpec, summary: string, add: (item: ShownItem) => Promise<unknown>): RouteSpec {
  return {
    ...spec,
    summary,
    handler: async (request, reply) => add((await spec.handler(request, reply)) as ShownItem),
  };
}

/**
 * Adds to `GET /jobs/:jid` and `GET /batches/:id` what an operator needs next to the stored
 * record: `allowedActions` (the operator actions the lifecycle machine accepts now, so a client
 * offers only those), `lock` (the session holding the item's lock and its registered engine
 * process) and `trace` (the stored traceparent's trace id, with a Jaeger link when
 * `MRTQ_JAEGER_URL` is set). Other routes pass through unchanged.
 */
export function withItemDetails(ctx: ApiContext, routes: readonly RouteSpec[]): RouteSpec[] {
  return routes.map((spec) => {
    if (spec.method !== 'GET') return spec;
    if (spec.url === '/jobs/:jid') {
      return decorated(
        spec,
        'A job: status, configuration, identifiers; the actions its lifecycle allows now, its lock holder, its trace',
        (item) => (item.kind === 'job' ? jobDetails(ctx, item) : Promise.resolve(item)),
      );
    }
    if (spec.url === '/batches/:id') {
      return decorated(
        spec,
        'A batch by bid or uuid: status, submission, report, its jobs by folder; the actions its lifecycle allows now, its lock holder, its trace',
        (item) => (item.kind === 'batch' ? batchDetails(ctx, item) : Promise.resolve(item)),
      );
    }
    return spec;
  });
}
