import { computeRollups, ROLLUP_KEYS, type RollupKey } from '../../views/rollups/rollups.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { progressSchema, stateCounts, type JsonSchema } from '../schemas.js';

const count = { type: 'integer', minimum: 0 };
const stateList = { type: 'array', items: { type: 'string' } };

const rollupQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    by: { type: 'string', enum: [...ROLLUP_KEYS], description: 'collection (default) or profile' },
  },
};

const rollupsBody: JsonSchema = {
  type: 'object',
  required: ['by', 'groups', 'states', 'categories', 'index'],
  properties: {
    by: { type: 'string' },
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'total', 'states', 'progress'],
        properties: {
          key: { type: 'string', description: 'the collection or profile ("" when the job names none)' },
          total: count,
          states: stateCounts,
          progress: progressSchema,
          oldestWaiting: {
            type: 'object',
            description: 'the job in a waiting state whose status changed longest ago',
            properties: { jid: { type: 'string' }, state: { type: 'string' }, since: { type: 'string' } },
          },
        },
      },
    },
    states: { ...stateList, description: "the lifecycle's job states in table order" },
    categories: {
      type: 'object',
      description: 'which states each progress category counts, derived from the lifecycle',
      properties: { done: stateList, failed: stateList, inFlight: stateList, waiting: stateList },
    },
    index: {
      type: 'object',
      description: 'the in-memory job index the counts come from (refreshed when older than 2 s)',
      properties: {
        jobs: count,
        refreshedAt: { type: 'string' },
        lastRead: count,
        lastRefreshMs: count,
      },
    },
  },
};

/**
 * `GET /rollups?by=collection|profile`: every job counted by collection or profile and state,
 * with each group's oldest waiting job, from the job index this process keeps (built by the
 * first request, then refreshed incrementally: see src/views/job-index/job-index.ts).
 */
export function rollupRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/rollups',
      tag: 'dashboard',
      summary:
        'Jobs per collection or profile: counts by state, progress (done, failed, in flight, waiting), oldest waiting job',
      schema: { querystring: rollupQuery, response: { 200: rollupsBody } },
      handler: async (request) => {
        const { by } = request.query as { by?: RollupKey };
        return computeRollups(ctx.queue, by ?? 'collection');
      },
    },
  ];
}
