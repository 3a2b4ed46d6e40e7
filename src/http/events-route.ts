import type { ServerResponse } from 'node:http';
import type { ApiContext, RouteSpec } from './deps.js';
import { DEFAULT_EVENTS_BUFFER_BYTES, EventClient } from './event-client.js';

/** The content type of streaming routes: they need the token when one is configured (see streamGuard). */
export const EVENT_STREAM = 'text/event-stream';

/** How often an idle stream sends a comment, so proxies and clients keep it open. */
const KEEP_ALIVE_MS = 15_000;

function open(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': `${EVENT_STREAM}; charset=utf-8`,
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': mrtq transitions\n\n');
}

/**
 * `GET /events`: server-sent events. `ready` once every job folder and batch status has been
 * read (transitions after it are seen), then one `transition` event per observed change
 * `{kind, id, from, to, at}`. No replay: a client that reconnects sees transitions from then on.
 * A client that stops reading is disconnected once `ctx.eventsBufferBytes` wait for it (see
 * EventClient), counted in `mrtq_events_clients_dropped_total`.
 */
export function eventsRoute(ctx: ApiContext): RouteSpec {
  const limit = ctx.eventsBufferBytes ?? DEFAULT_EVENTS_BUFFER_BYTES;
  return {
    method: 'GET',
    url: '/events',
    tag: 'events',
    summary:
      'Server-sent events: `ready`, then `transition` {kind, id, from, to, at} for every job and batch ' +
      'state change any process makes (fast consecutive changes of one item may arrive merged). ' +
      'With a token configured: `Authorization: Bearer <token>` or `?token=<token>`. A client that ' +
      `stops reading is disconnected once ${limit} bytes wait for it`,
    produces: EVENT_STREAM,
    schema: {},
    handler: (request, reply) => {
      reply.hijack();
      const res = reply.raw;
      open(res);
      const client = new EventClient(res, limit, (buffered) => {
        ctx.counters.inc('mrtq_events_clients_dropped_total');
        request.log.warn(
          { client: request.ip, buffered, limit },
          'event stream client not reading: disconnected',
        );
      });
      const keepAlive = setInterval(() => client.keepAlive(': keep-alive\n\n'), KEEP_ALIVE_MS);
      res.on('close', () => {
        clearInterval(keepAlive);
        ctx.events.remove(client);
      });
      ctx.events.add(client);
      return Promise.resolve(reply);
    },
  };
}
