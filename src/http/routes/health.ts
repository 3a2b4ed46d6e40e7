import type { ApiContext, RouteSpec } from '../deps.js';
import { HttpProblem } from '../errors.js';
import { metricsText } from '../metrics.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../telemetry/prometheus.js';
import type { JsonSchema } from '../schemas.js';

const statusProperties = { status: { type: 'string' }, session: { type: 'string' } };

const statusBody: JsonSchema = { type: 'object', properties: statusProperties };

const readyBody: JsonSchema = {
  type: 'object',
  properties: {
    ...statusProperties,
    deployment: { type: 'string', description: 'standalone, or merritt' },
    leftToMerritt: {
      type: 'array',
      description: "Job states this process leaves to Merritt's services (merritt deployment)",
      items: {
        type: 'object',
        properties: { state: { type: 'string' }, service: { type: 'string' } },
      },
    },
  },
};

/** Why the process is not ready, for the 503 of `/readyz`. */
function notReadyReason(ctx: ApiContext): string {
  const session = ctx.sessionState();
  if (session !== 'connected') return `the ZooKeeper session is ${session}`;
  // Also while start-up waits for ZooKeeper: its log says which step, attempt by attempt.
  return 'the engine consumers are not running';
}

/** `/healthz` (process alive), `/readyz` (able to work) and `/metrics` (Prometheus text). */
export function healthRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/healthz',
      tag: 'health',
      summary: 'The process is alive (answers without asking ZooKeeper)',
      schema: { response: { 200: statusBody } },
      handler: () => Promise.resolve({ status: 'ok' }),
    },
    {
      method: 'GET',
      url: '/readyz',
      tag: 'health',
      summary:
        'Ready: start-up finished, ZooKeeper session live, consumers running (503 with the reason otherwise)',
      schema: { response: { 200: readyBody } },
      handler: () => {
        if (!ctx.ready())
          return Promise.reject(new HttpProblem(503, 'NOT_READY', `not ready: ${notReadyReason(ctx)}`));
        const { mode, leftToMerritt } = ctx.deployment ?? { mode: 'standalone', leftToMerritt: [] };
        return Promise.resolve({
          status: 'ready',
          session: ctx.sessionState(),
          deployment: mode,
          leftToMerritt,
        });
      },
    },
    {
      method: 'GET',
      url: '/metrics',
      tag: 'health',
      summary: 'Prometheus metrics: jobs per state, batches per status, session, in-flight work, counters',
      produces: PROMETHEUS_CONTENT_TYPE,
      schema: {},
      handler: async (_request, reply) => {
        const text = await metricsText(ctx);
        return reply.type(PROMETHEUS_CONTENT_TYPE).send(text);
      },
    },
  ];
}
