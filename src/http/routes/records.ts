import { parseMoment } from '../../config/duration.js';
import { HttpProblem } from '../errors.js';
import { premisOf } from '../../history/premis.js';
import type { HistoryEntry } from '../../history/entry.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { anyObject, params, type JsonSchema } from '../schemas.js';

const LIMIT = { type: 'string', pattern: '^[1-9][0-9]{0,3}$', description: '1-9999 (default 200)' };
const TIME = {
  type: 'string',
  maxLength: 40,
  description: 'ISO 8601 time, or a duration back from now (1h, 7d)',
};

const auditQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    item: { type: 'string', maxLength: 200, description: 'jid, bid, queue:<name>, collection:<mnemonic>…' },
    actor: { type: 'string', maxLength: 200, description: "a credential's or person's name" },
    action: { type: 'string', maxLength: 100, description: '"requeue job", "bulk delete"…' },
    since: TIME,
    until: TIME,
    limit: LIMIT,
  },
};

const historyQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    since: TIME,
    format: {
      type: 'string',
      enum: ['json', 'premis'],
      description: 'premis: PREMIS 3 events (XML), jobs only',
    },
  },
};

/** `since`/`until` as a time: ISO 8601, or a duration back from now. */
function timeOf(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = parseMoment(value);
  if (at === undefined)
    throw new HttpProblem(
      400,
      'BAD_REQUEST',
      `${field} must be an ISO 8601 time or a duration like 7d`,
      {},
      field,
    );
  return at;
}

function needs<T>(value: T | undefined, what: string): T {
  if (value === undefined)
    throw new HttpProblem(
      501,
      'NOT_CONFIGURED',
      `${what} is not kept by this process (no records directory)`,
    );
  return value;
}

/**
 * The audit log and the histories (issue 35): `GET /audit` (operator actions by item, actor,
 * action and time), `GET /jobs/:jid/history` and `GET /batches/:bid/history` (every step, retry
 * and operator action, merged from every engine's journal), a job's as PREMIS 3 events.
 */
export function recordRoutes(ctx: ApiContext): RouteSpec[] {
  const historyRoute = (noun: 'job' | 'batch', param: 'jid' | 'bid'): RouteSpec => ({
    method: 'GET',
    url: `/${noun === 'job' ? 'jobs' : 'batches'}/:${param}/history`,
    tag: noun === 'job' ? 'jobs' : 'batches',
    summary: `The ${noun}'s history: every transition (from, to, engine, duration), step attempt, retry and operator action, oldest first; kept after it is gone for the journal's retention${noun === 'job' ? '; format=premis: PREMIS 3 events' : ''}`,
    schema: { params: params[param], querystring: historyQuery, response: { 200: anyObject } },
    handler: async (request, reply) => {
      const id = (request.params as Record<string, string>)[param]!;
      const query = request.query as { since?: string; format?: string };
      const history = await needs(ctx.history, 'history').of(id, { since: timeOf(query.since, 'since') });
      if (query.format !== 'premis') return history;
      if (noun !== 'job')
        throw new HttpProblem(400, 'BAD_REQUEST', 'PREMIS events are written for jobs (objects)');
      const steps = history.events.filter((e): e is HistoryEntry & { type: 'step' } => e.type === 'step');
      return reply.type('application/xml; charset=utf-8').send(premisOf(ctx.queue.lifecycle, id, steps));
    },
  });
  return [
    {
      method: 'GET',
      url: '/audit',
      tag: 'operators',
      summary:
        'The audit log: who did what to which item, why, when, the state before and after, and the outcome; newest last',
      schema: { querystring: auditQuery, response: { 200: anyObject } },
      handler: async (request) => {
        const q = request.query as Record<string, string | undefined>;
        const read = await needs(ctx.audit, 'the audit log').query({
          item: q.item,
          actor: q.actor,
          action: q.action,
          since: timeOf(q.since, 'since'),
          until: timeOf(q.until, 'until'),
          limit: q.limit === undefined ? 200 : Number(q.limit),
        });
        return { entries: read.entries, truncated: read.truncated, unreadable: read.unreadable };
      },
    },
    historyRoute('job', 'jid'),
    historyRoute('batch', 'bid'),
  ];
}
