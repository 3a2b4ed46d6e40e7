import { holdBatch, releaseBatch, updateReport, deleteBatch } from '../../admin/batches.js';
import { releaseCollection } from '../../admin/collections.js';
import {
  deleteJob,
  failJob,
  holdJob,
  releaseJob,
  requeueJob,
  type RequeueOptions,
} from '../../admin/jobs.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { retryJobNow } from '../../admin/retry-now.js';
import { QueueError } from '../../queue/tree/errors.js';
import type { QueueName } from '../../queue/tree/paths.js';
import type { Role } from '../../auth/actor.js';
import { holdCollection, pauseQueue, resumeQueue } from '../../queue/locks/queue-pause.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { actionBody, anyObject, params, type ActionBody } from '../schemas.js';

type Act = (queue: QueueContext, id: string, options: RequeueOptions) => Promise<unknown>;

interface ActionTarget {
  /** URL prefix and its parameter: `/jobs/:jid`. */
  prefix: string;
  param: 'jid' | 'bid' | 'queue' | 'mnemonic';
  noun: string;
  /** What the actions act on, for credentials limited to collections; absent: the whole queue. */
  reach?: RouteSpec['reach'];
  /** Each action with the role it needs: undoing or repeating a step `operator`, losing work `admin`. */
  actions: Readonly<Record<string, { act: Act; summary: string; role: Role }>>;
}

const TARGETS: readonly ActionTarget[] = [
  {
    prefix: '/jobs/:jid',
    param: 'jid',
    noun: 'job',
    reach: 'job',
    actions: {
      hold: {
        act: async (q, id, o) => ({ job: await holdJob(q, id, o) }),
        summary: 'pending → held',
        role: 'operator',
      },
      release: {
        act: async (q, id, o) => ({ job: await releaseJob(q, id, o) }),
        summary: 'held → pending',
        role: 'operator',
      },
      requeue: {
        act: async (q, id, o) => ({ job: await requeueJob(q, id, o) }),
        summary: 'failed → the state after its last success (retry count + 1; a failed batch reopens)',
        role: 'operator',
      },
      delete: {
        act: async (q, id, o) => ({ job: await deleteJob(q, id, o) }),
        summary: 'held or failed → deleted',
        role: 'admin',
      },
      retry: {
        act: async (q, id) => {
          const { job, retry } = await retryJobNow(q, id);
          return { job, retry };
        },
        summary:
          'a job waiting to retry after a transient failure: its next attempt now (its retry record says when and why)',
        role: 'operator',
      },
      fail: {
        act: (q, id, o) => failJob(q, id, { reason: o.reason }),
        summary:
          'pending or working → failed, whoever holds its lock; its storage and inventory locks are released (mrt-admin Fail); the reason becomes its message',
        role: 'admin',
      },
    },
  },
  {
    prefix: '/batches/:bid',
    param: 'bid',
    noun: 'batch',
    reach: 'batch',
    actions: {
      hold: {
        act: async (q, id, o) => ({ batch: await holdBatch(q, id, o) }),
        summary: 'pending → held',
        role: 'operator',
      },
      release: {
        act: async (q, id, o) => ({ batch: await releaseBatch(q, id, o) }),
        summary: 'held → pending',
        role: 'operator',
      },
      'update-report': {
        act: async (q, id, o) => ({ batch: await updateReport(q, id, o) }),
        summary: 'failed → update-reporting (the report is sent again)',
        role: 'operator',
      },
      delete: {
        act: (q, id, o) => deleteBatch(q, id, o),
        summary: 'held or failed → deleted, with its jobs (what remains, cleanup removes)',
        role: 'admin',
      },
    },
  },
  {
    prefix: '/queues/:queue',
    param: 'queue',
    noun: 'queue',
    actions: {
      pause: {
        act: async (q, id) => ({ queue: id, paused: true, changed: await pauseQueue(q, id as QueueName) }),
        summary: 'pause a queue: its consumers acquire nothing',
        role: 'admin',
      },
      resume: {
        act: async (q, id) => ({ queue: id, paused: false, changed: await resumeQueue(q, id as QueueName) }),
        summary: 'resume a paused queue',
        role: 'admin',
      },
    },
  },
  {
    prefix: '/collections/:mnemonic',
    param: 'mnemonic',
    noun: 'collection',
    reach: 'collection',
    actions: {
      hold: {
        act: async (q, id) => ({ collection: id, held: true, changed: await holdCollection(q, id) }),
        summary: 'hold a collection: its pending batches and jobs go to held',
        role: 'admin',
      },
      release: {
        act: async (q, id) => ({ collection: id, held: false, ...(await releaseCollection(q, id)) }),
        summary: 'clear the hold and release its held batches and jobs',
        role: 'admin',
      },
    },
  },
];

function actionRoute(
  ctx: ApiContext,
  target: ActionTarget,
  name: string,
  { act, summary, role }: ActionTarget['actions'][string],
): RouteSpec {
  const tag = target.noun === 'batch' ? 'batches' : target.noun === 'job' ? 'jobs' : 'operators';
  return {
    method: 'POST',
    url: `${target.prefix}/${name}`,
    tag,
    summary: `${name} ${target.noun}: ${summary}`,
    mutating: true,
    role,
    ...(target.reach ? { reach: target.reach } : {}),
    action: `${name} ${target.noun}`,
    schema: { params: params[target.param], body: actionBody, response: { 200: anyObject } },
    handler: async (request) => {
      const id = (request.params as Record<string, string>)[target.param] as string;
      const body = (request.body ?? {}) as ActionBody;
      if (body.to !== undefined && !(name === 'requeue' && target.noun === 'job'))
        throw new QueueError('BAD_REQUEST', `"to" applies to a job's requeue, not to ${name} ${target.noun}`);
      const options: RequeueOptions = { force: body.force, reason: body.reason, to: body.to };
      request.log.info({ action: `${name} ${target.noun}`, item: id, ...options }, 'operator action');
      return act(ctx.queue, id, options);
    },
  };
}

/** The operator actions: one POST route per action on jobs, batches, queues and collections. */
export function adminRoutes(ctx: ApiContext): RouteSpec[] {
  return TARGETS.flatMap((target) =>
    Object.entries(target.actions).map(([name, action]) => actionRoute(ctx, target, name, action)),
  );
}
