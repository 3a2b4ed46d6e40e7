import { DEFAULT_RETRY_RULE, retryPolicySchema } from '../../engine/retry/policy.js';
import { DEFAULT_SHARES_POLICY, sharesPolicySchema, type SharesPolicy } from '../../engine/shares/policy.js';
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

/** A policy with one key's weight and cap changed (a cap of null removes the key's own cap). */
function withShare(
  policy: SharesPolicy,
  key: string,
  change: { weight?: number; cap?: number | null },
): SharesPolicy {
  const weights = { ...policy.weights };
  const caps = { ...policy.caps };
  if (change.weight !== undefined) weights[key] = change.weight;
  if (change.cap === null) delete caps[key];
  else if (change.cap !== undefined) caps[key] = change.cap;
  return { ...policy, weights, caps };
}

export function policyRoutes(ctx: ApiContext): RouteSpec[] {
  const body = (request: { body: unknown }) => request.body as { policy: unknown; version?: number };
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
    {
      method: 'PUT',
      url: '/policies/retry',
      tag: 'operators',
      summary: 'Replace the retry policy (every engine applies it at once)',
      mutating: true,
      action: 'set retry policy',
      schema: { body: policyBody, response: { 200: anyObject } },
      handler: async (request) => {
        const { policy, version } = body(request);
        request.log.info({ action: 'set retry policy', policy }, 'operator action');
        return writePolicy(ctx.queue, RETRY_POLICY, retryPolicySchema, policy, version);
      },
    },
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
    {
      method: 'PUT',
      url: '/policies/shares',
      tag: 'operators',
      summary: 'Replace the fair shares policy (every engine applies it at once)',
      mutating: true,
      action: 'set shares policy',
      schema: { body: policyBody, response: { 200: anyObject } },
      handler: async (request) => {
        const { policy, version } = body(request);
        request.log.info({ action: 'set shares policy', policy }, 'operator action');
        return writePolicy(ctx.queue, SHARES_POLICY, sharesPolicySchema, policy, version);
      },
    },
    {
      method: 'POST',
      url: '/policies/shares/:key',
      tag: 'operators',
      summary: "Change one key's weight or cap (a collection's, by default)",
      mutating: true,
      action: 'change share',
      schema: { params: keyParam, body: shareBody, response: { 200: anyObject } },
      handler: async (request) => {
        const { key } = request.params as { key: string };
        const change = (request.body ?? {}) as { weight?: number; cap?: number | null };
        request.log.info({ action: 'change share', key, ...change }, 'operator action');
        // Read, change, write over the version read: a concurrent change is a 409, not lost.
        const stored = await readPolicy(ctx.queue, SHARES_POLICY, sharesPolicySchema, DEFAULT_SHARES_POLICY);
        return writePolicy(
          ctx.queue,
          SHARES_POLICY,
          sharesPolicySchema,
          withShare(stored.value, key, change),
          stored.version,
        );
      },
    },
  ];
}
