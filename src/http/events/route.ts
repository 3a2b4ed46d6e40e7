import type { ServerResponse } from 'node:http';
import type { ApiContext, RouteSpec } from '../deps.js';
import { DEFAULT_EVENTS_BUFFER_BYTES, EventClient } from './client.js';

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

/** The `Last-Event-ID` a reconnecting EventSource sends (one value, however many were sent). */
function lastEventIdOf(value: string | string[] | undefined): string | undefined {
  const id = Array.isArray(value) ? value[0] : value;
  return id === undefined || id === '' ? undefined : id;
}

/**
 * `GET /events`: server-sent events, each with an `id:`. `ready` once every job folder and batch
 * status has been read (transitions after it are seen), then one `transition` event per observed
 * change `{kind, id, from, to, at}`. A client that reconnects with `Last-Event-ID` (EventSource
 * does by itself) gets the transitions it missed, then the live ones, when this process still
 * holds them (the last `ctx.eventsBufferBytes` of frames, see EventFanout); else `reset` in place
 * of `ready`. A client that stops reading is disconnected once `ctx.eventsBufferBytes` wait for
 * it (see EventClient), counted in `mrtq_events_clients_dropped_total`.
 */
export function eventsRoute(ctx: ApiContext): RouteSpec {
  const limit = ctx.eventsBufferBytes ?? DEFAULT_EVENTS_BUFFER_BYTES;
  ctx.events.configure({ retainBytes: limit });
  return {
    method: 'GET',
    url: '/events',
    tag: 'events',
    summary:
      'Server-sent events: `ready`, then `transition` {kind, id, from, to, at} for every job and batch ' +
      'state change any process makes (fast consecutive changes of one item may arrive merged). ' +
      'Every event has an `id:`; a client that reconnects with `Last-Event-ID` gets the events it missed ' +
      '(while this process still holds them), else `reset` in place of `ready`: re-read what it shows. ' +
      'With a token configured: `Authorization: Bearer <token>` or `?token=<token>`. A client that ' +
      `stops reading is disconnected once ${limit} bytes wait for it`,
    produces: EVENT_STREAM,
    role: 'read',
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
      ctx.events.add(client, lastEventIdOf(request.headers['last-event-id']));
      return Promise.resolve(reply);
    },
  };
}
