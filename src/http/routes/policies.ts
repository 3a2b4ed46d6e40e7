import { DEFAULT_RETRY_RULE, retryPolicySchema } from '../../engine/retry/policy.js';
import type { z } from 'zod';
import { DEFAULT_SHARES_POLICY, sharesPolicySchema } from '../../engine/shares/policy.js';
import { changeShare, type ShareChange } from '../../admin/shares.js';
import { readPolicy, RETRY_POLICY, SHARES_POLICY, writePolicy } from '../../queue/policies/store.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { listRetryWaits } from '../../views/retries/retries.js';
import { anyObject, type JsonSchema } from '../schemas.js';

/**
 * The run-time policies every engine watches (docs/engine.md, "Retry policies" and "Fair
 * shares"): read them, replace them (checked by their schema: 400 naming the field), and change
 * one collection's weight or cap. A write with `version` applies only over that version (409).
 */

const policyBody: JsonSchema = {
  type: 'object',
  required: ['policy'],
  additionalProperties: false,
  properties: {
    policy: { type: 'object', description: 'the policy as stored (see docs/engine.md)' },
    version: {
      type: 'integer',
      description: 'write only over this version of the node (-1: only while absent)',
    },
  },
};

const shareBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    weight: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    cap: { type: ['integer', 'null'], minimum: 0, description: 'null: no cap of its own' },
  },
};

const keyParam: JsonSchema = {
  type: 'object',
  required: ['key'],
  properties: { key: { type: 'string', minLength: 1, maxLength: 200 } },
};

/** `PUT <url>`: replaces a policy, checked by its schema (400 naming the field), over `version` if given. */
export function replaceRoute(
  ctx: ApiContext,
  url: string,
  path: string,
  schema: z.ZodType<object>,
  what: string,
): RouteSpec {
  return {
    method: 'PUT',
    url,
    tag: 'operators',
    summary: `Replace the ${what} (every engine applies it at once)`,
    mutating: true,
    role: 'admin',
    action: `set ${what}`,
    schema: { body: policyBody, response: { 200: anyObject } },
    handler: async (request) => {
      const { policy, version } = request.body as { policy: unknown; version?: number };
      request.log.info({ action: `set ${what}`, policy }, 'operator action');
      return writePolicy(ctx.queue, path, schema, policy, version);
    },
  };
}

export function policyRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/retries',
      tag: 'jobs',
      summary:
        'Jobs waiting for their next attempt after a transient failure, soonest first: when, why, how many so far',
      schema: { response: { 200: anyObject } },
      handler: async () => ({ waiting: await listRetryWaits(ctx.queue) }),
    },
    {
      method: 'GET',
      url: '/policies/retry',
      tag: 'operators',
      summary: 'The retry policy: attempts and backoff of transient step failures, per step and profile',
      schema: { response: { 200: anyObject } },
      handler: async () => ({
        ...(await readPolicy(ctx.queue, RETRY_POLICY, retryPolicySchema, {})),
        defaults: DEFAULT_RETRY_RULE,
      }),
    },
    replaceRoute(ctx, '/policies/retry', RETRY_POLICY, retryPolicySchema, 'retry policy'),
    {
      method: 'GET',
      url: '/policies/shares',
      tag: 'operators',
      summary:
        "Fair shares: the key jobs are shared by, weights and caps; with this process's engine, each key's jobs waiting and at work",
      schema: { response: { 200: anyObject } },
      handler: async () => ({
        ...(await readPolicy(ctx.queue, SHARES_POLICY, sharesPolicySchema, DEFAULT_SHARES_POLICY)),
        use: ctx.engine?.shareUse?.() ?? [],
      }),
    },
    replaceRoute(ctx, '/policies/shares', SHARES_POLICY, sharesPolicySchema, 'shares policy'),
    {
      method: 'POST',
      url: '/policies/shares/:key',
      tag: 'operators',
      summary: "Change one key's weight or cap (a collection's, by default)",
      mutating: true,
      role: 'admin',
      action: 'change share',
      schema: { params: keyParam, body: shareBody, response: { 200: anyObject } },
      handler: async (request) => {
        const { key } = request.params as { key: string };
        const change = (request.body ?? {}) as ShareChange;
        request.log.info({ action: 'change share', key, ...change }, 'operator action');
        return changeShare(ctx.queue, key, change);
      },
    },
  ];
}
