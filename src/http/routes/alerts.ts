import { ALERT_DEFAULTS, ALERT_RULES, alertsPolicySchema, EMPTY_ALERTS_POLICY } from '../../alerts/policy.js';
import { AGE_QUANTILES } from '../../alerts/quantiles.js';
import { ALERTS_POLICY, readPolicy } from '../../queue/policies/store.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { anyObject, type JsonSchema } from '../schemas.js';
import { replaceRoute } from './policies.js';

/**
 * The alert rules (docs/engine.md, "Alerts"): the last evaluation of this process (`GET /alerts`),
 * and their thresholds (`/policies/alerts`), which every serving process watches.
 */

const item: JsonSchema = {
  type: 'object',
  required: ['kind', 'id', 'detail', 'value'],
  properties: {
    kind: { type: 'string', enum: ['queue', 'batch', 'collection', 'job', 'engine'] },
    id: { type: 'string' },
    detail: { type: 'string' },
    value: { type: 'number', description: 'its age in seconds, or its retries' },
  },
};

const rule: JsonSchema = {
  type: 'object',
  required: ['rule', 'summary', 'enabled', 'threshold', 'unit', 'value', 'firing', 'items', 'itemCount'],
  properties: {
    rule: { type: 'string', enum: [...ALERT_RULES] },
    summary: { type: 'string' },
    enabled: { type: 'boolean', description: 'false: turned off by the policy (never fires)' },
    threshold: { type: 'number', description: 'seconds, or retries (unit)' },
    unit: { type: 'string', enum: ['seconds', 'retries'] },
    value: { type: 'number', description: 'what the rule compares with its threshold (see docs/engine.md)' },
    firing: { type: 'boolean' },
    since: { type: 'string', format: 'date-time', description: 'when the condition began to hold' },
    items: { type: 'array', items: item, description: 'the items concerned, worst first (at most 50)' },
    itemCount: { type: 'integer' },
    note: { type: 'string' },
  },
};

const stateAge: JsonSchema = {
  type: 'object',
  required: ['state', 'jobs', 'read', 'exact', 'quantiles'],
  properties: {
    state: { type: 'string' },
    jobs: { type: 'integer' },
    read: { type: 'integer', description: 'jobs whose age was read (all, or a sample)' },
    exact: { type: 'boolean' },
    quantiles: {
      type: 'object',
      description: `seconds in the state by quantile (${AGE_QUANTILES.join(', ')}; 1: the oldest)`,
      additionalProperties: { type: 'number' },
    },
  },
};

const alertsBody: JsonSchema = {
  type: 'object',
  required: ['evaluating', 'rules', 'stateAges'],
  properties: {
    evaluating: { type: 'boolean', description: 'whether this process evaluates the rules' },
    evaluatedAt: { type: 'string', format: 'date-time' },
    intervalMs: { type: 'integer' },
    error: { type: 'string', description: 'why the last evaluation failed (the results are older)' },
    failures: { type: 'integer' },
    policy: anyObject,
    rules: { type: 'array', items: rule },
    stateAges: { type: 'array', items: stateAge },
    ingest: anyObject,
    engines: anyObject,
  },
};

export function alertRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/alerts',
      tag: 'operators',
      summary:
        'The alert rules as this process last evaluated them: each with its threshold, value, whether it fires, since when, ' +
        'and the items concerned; and the time jobs have been in each state',
      schema: { response: { 200: alertsBody } },
      handler: () => {
        if (!ctx.alerts) return Promise.resolve({ evaluating: false, rules: [], stateAges: [] });
        const { policy, ...report } = ctx.alerts.current();
        return Promise.resolve({
          evaluating: true,
          ...report,
          policy: { ...policy, defaults: ALERT_DEFAULTS },
        });
      },
    },
    {
      method: 'GET',
      url: '/policies/alerts',
      tag: 'operators',
      summary: 'The alert thresholds (durations in ms once written) and which rules are off',
      schema: { response: { 200: anyObject } },
      handler: async () => ({
        ...(await readPolicy(ctx.queue, ALERTS_POLICY, alertsPolicySchema, EMPTY_ALERTS_POLICY)),
        defaults: ALERT_DEFAULTS,
      }),
    },
    replaceRoute(ctx, '/policies/alerts', ALERTS_POLICY, alertsPolicySchema, 'alerts policy'),
  ];
}
