import { accessStates, type AccessState } from '../../../machines/index.js';
import {
  ACCESS_QUEUE_NAMES,
  listAccess,
  showAccess,
  type AccessFilter,
  type AccessSummary,
} from '../../views/listing/access.js';
import { cleanupAccess, deleteAccess, requeueAccess } from '../../admin/access.js';
import type { AdminOptions } from '../../admin/lock.js';
import type { Role } from '../../auth/actor.js';
import type { AccessQueue } from '../../../machines/index.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { DEFAULT_LIMIT } from './items.js';
import type { JsonSchema } from '../schemas.js';
import { allowedAccessActions } from '../dashboard/allowed-actions.js';

/**
 * The access (assembly) queues: list and show requests, and mrt-admin's actions on them
 * (requeue, delete, cleanup), each checked by the access machine. Mutations need the token.
 */

const accessParams: JsonSchema = {
  type: 'object',
  required: ['queue', 'qid'],
  properties: {
    queue: { type: 'string', enum: [...ACCESS_QUEUE_NAMES] },
    qid: { type: 'string', pattern: '^qid[0-9]{1,20}$' },
  },
};

const accessQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    queue: { type: 'string', enum: [...ACCESS_QUEUE_NAMES] },
    status: { type: 'string', enum: [...accessStates, 'invalid'] },
    offset: { type: 'string', pattern: '^[0-9]{1,9}$', description: 'items to skip (default 0)' },
    limit: {
      type: 'string',
      pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$',
      description: '1-500 (default 50)',
    },
  },
};

const accessSummary: JsonSchema = {
  type: 'object',
  properties: {
    queue: { type: 'string' },
    qid: { type: 'string' },
    status: { type: 'string' },
    rawStatus: { type: 'string', description: 'an invalid request: its status as written' },
    message: { type: ['string', 'null'] },
    lastModified: { type: 'string' },
    locked: { type: 'boolean' },
    token: {
      type: 'object',
      additionalProperties: true,
      description:
        'the token node as written: token (a UUID from Merritt), cloud-content-byte, delivery-node, url…',
    },
    path: { type: 'string' },
    lockOwner: { type: 'string' },
    allowedActions: {
      type: 'array',
      items: { type: 'string', enum: ['requeue', 'delete'] },
      description: 'the operator actions the access machine allows now (the dashboard’s buttons)',
    },
  },
};

const accessList: JsonSchema = {
  type: 'object',
  required: ['items', 'total'],
  properties: { items: { type: 'array', items: accessSummary }, total: { type: 'integer', minimum: 0 } },
};

const accessActionBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    force: { type: 'boolean', description: 'break a lock another session holds (needs a reason)' },
    reason: { type: 'string', maxLength: 500 },
  },
};

const cleanupBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    retentionMs: {
      type: 'integer',
      minimum: 0,
      description: 'remove completed and deleted requests modified longer ago than this (default 7 days)',
    },
    dryRun: { type: 'boolean', description: 'report what would be removed, remove nothing' },
  },
};

const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

const SEVEN_DAYS_MS = 7 * 86_400_000;

/** A request with the actions its machine allows now; none for one the lifecycle cannot read. */
function withActions<T extends AccessSummary>(item: T): T & { allowedActions: string[] } {
  if (item.status === 'invalid') return { ...item, allowedActions: [] };
  const stored = { accessId: item.qid, queue: item.queue, status: item.status, message: item.message };
  return { ...item, allowedActions: allowedAccessActions(stored) };
}

type Params = { queue: AccessQueue; qid: string };
type Act = typeof requeueAccess;

function actionRoute(ctx: ApiContext, name: string, act: Act, summary: string, role: Role): RouteSpec {
  return {
    method: 'POST',
    url: `/access/:queue/:qid/${name}`,
    tag: 'operators',
    summary: `${name} access request: ${summary}`,
    mutating: true,
    role,
    action: `${name} access request`,
    schema: { params: accessParams, body: accessActionBody, response: { 200: anyObject } },
    handler: async (request) => {
      const { queue, qid } = request.params as Params;
      const options = (request.body ?? {}) as AdminOptions;
      request.log.info(
        { action: `${name} access request`, item: `${queue}/${qid}`, ...options },
        'operator action',
      );
      return { request: await act(ctx.queue, `${queue}/${qid}`, options) };
    },
  };
}

/** `GET /access`, `GET /access/:queue/:qid`, and the operator actions on access requests. */
export function accessRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/access',
      tag: 'operators',
      summary:
        'Access (assembly) requests of both queues, oldest first in each, filtered by queue and status',
      schema: { querystring: accessQuery, response: { 200: accessList } },
      handler: async (request) => {
        const query = request.query as { queue?: AccessQueue; status?: AccessState | 'invalid' } & {
          offset?: string;
          limit?: string;
        };
        const filter: AccessFilter = { queue: query.queue, status: query.status };
        const page = { offset: Number(query.offset ?? 0), limit: Number(query.limit ?? DEFAULT_LIMIT) };
        const listed = await listAccess(ctx.queue, filter, page);
        return { ...listed, items: listed.items.map(withActions) };
      },
    },
    {
      method: 'GET',
      url: '/access/:queue/:qid',
      tag: 'operators',
      summary: 'One access request: status, token as written, lock owner',
      schema: { params: accessParams, response: { 200: accessSummary } },
      handler: async (request) => {
        const { queue, qid } = request.params as Params;
        return withActions(await showAccess(ctx.queue, `${queue}/${qid}`));
      },
    },
    actionRoute(
      ctx,
      'requeue',
      requeueAccess,
      'failed → pending (assembled again, as mrt-admin requeues)',
      'operator',
    ),
    actionRoute(ctx, 'delete', deleteAccess, 'failed or completed → deleted (cleanup removes it)', 'admin'),
    {
      method: 'POST',
      url: '/access/cleanup',
      tag: 'operators',
      summary: 'Remove completed and deleted access requests older than the retention',
      mutating: true,
      role: 'admin',
      action: 'clean access requests',
      schema: { body: cleanupBody, response: { 200: anyObject } },
      handler: async (request) => {
        const body = (request.body ?? {}) as { retentionMs?: number; dryRun?: boolean };
        return cleanupAccess(ctx.queue, {
          retentionMs: body.retentionMs ?? SEVEN_DAYS_MS,
          dryRun: body.dryRun,
        });
      },
    },
  ];
}
