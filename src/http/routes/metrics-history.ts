import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { HISTORY_RETAIN_MS, type MetricsHistory } from '../../telemetry/metrics-history.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import type { JsonSchema } from '../schemas.js';

/** The chart library's files the dashboard loads, served from the installed package (no CDN). */
const VENDOR_FILES = new Set(['uPlot.iife.min.js', 'uPlot.min.css']);
/** Where the dashboard finds them. */
export const UI_VENDOR_PREFIX = '/ui/vendor/';

/** The installed uPlot's `dist/` (its `main` lives there), found from src/ or a built dist/ alike. */
function uplotDist(): string {
  return dirname(createRequire(import.meta.url).resolve('uplot'));
}

const throughput = (what: string): JsonSchema => ({
  type: 'object',
  description: what,
  required: ['completed', 'failed', 'transitions'],
  properties: {
    completed: { type: 'number', description: 'jobs that entered a final state from a step' },
    failed: { type: 'number', description: 'jobs that entered the failed state' },
    transitions: { type: 'number', description: 'transitions of every kind (jobs, batches, access)' },
  },
});

const latency: JsonSchema = {
  type: 'object',
  required: ['count', 'mean', 'median', 'p95'],
  properties: {
    count: { type: 'integer', description: 'steps that ended in the interval' },
    mean: { type: 'number' },
    median: { type: 'number' },
    p95: { type: 'number' },
  },
};

const sample: JsonSchema = {
  type: 'object',
  required: ['at', 'seconds', 'counts', 'rates', 'latency'],
  properties: {
    at: { type: 'integer', description: 'end of the interval (epoch milliseconds)' },
    seconds: { type: 'number', description: 'length of the interval' },
    counts: throughput("what this process's engine committed in the interval"),
    rates: throughput('the same per second'),
    depth: {
      type: 'object',
      description: 'jobs per state in the whole queue at `at` (absent: ZooKeeper could not be read)',
      additionalProperties: { type: 'integer' },
    },
    latency: {
      type: 'object',
      description: 'per working state, seconds its steps took (a state that ran none is absent)',
      additionalProperties: latency,
    },
  },
};

const historyQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    since: {
      type: 'string',
      pattern: '^[0-9]{1,15}$',
      description: 'only samples after this time (epoch milliseconds, the `at` of the last one read)',
    },
  },
};

const historyBody: JsonSchema = {
  type: 'object',
  required: ['sampling', 'intervalMs', 'retainMs', 'states', 'samples'],
  properties: {
    sampling: { type: 'boolean', description: 'false: this process keeps no history (no engine)' },
    intervalMs: { type: 'integer', description: 'time between samples' },
    retainMs: { type: 'integer', description: 'how far back samples are kept' },
    states: {
      type: 'array',
      description: "the lifecycle's job states, in table order: the keys of depth and latency",
      items: {
        type: 'object',
        required: ['state', 'final'],
        properties: {
          state: { type: 'string' },
          final: { type: 'boolean' },
          step: { type: 'string', description: 'the step a working state runs' },
        },
      },
    },
    samples: { type: 'array', items: sample },
  },
};

function statesOf(history: MetricsHistory | undefined, ctx: ApiContext) {
  const lifecycle = history?.lifecycle ?? ctx.queue.lifecycle;
  return lifecycle.states.map((state) => {
    const step = lifecycle.stepOf(state);
    return { state, final: lifecycle.isFinal(state), ...(step ? { step } : {}) };
  });
}

/** `GET /metrics/history`: the last hour of this process's own metrics, for the dashboard's charts. */
export function metricsHistoryRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/metrics/history',
      tag: 'health',
      summary:
        "The last hour of this process's metrics, one sample per interval: jobs completed and failed " +
        'and transitions (counts and per second), jobs per state, step latency per working state',
      schema: { querystring: historyQuery, response: { 200: historyBody } },
      handler: (request) => {
        const history = ctx.metricsHistory;
        const { since } = request.query as { since?: string };
        return Promise.resolve({
          sampling: history !== undefined,
          intervalMs: history?.intervalMs ?? 0,
          retainMs: HISTORY_RETAIN_MS,
          states: statesOf(history, ctx),
          samples: history?.samples(since === undefined ? undefined : Number(since)) ?? [],
        });
      },
    },
  ];
}

/**
 * The chart library at {@link UI_VENDOR_PREFIX}: its two files, straight from the installed
 * package, by a second @fastify/static instance (the dashboard's own files have the first, which
 * decorates the reply).
 */
export function registerUiVendor(app: FastifyInstance): void {
  void app.register(fastifyStatic, {
    root: uplotDist(),
    prefix: UI_VENDOR_PREFIX,
    decorateReply: false,
    index: false,
    allowedPath: (path) => VENDOR_FILES.has(path.replace(/^\//, '')),
    setHeaders: (reply) => {
      reply.header('x-content-type-options', 'nosniff');
      reply.header('cache-control', 'public, max-age=86400');
    },
  });
}
