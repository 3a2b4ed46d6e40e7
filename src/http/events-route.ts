import type { ServerResponse } from 'node:http';
import type { ApiContext, RouteSpec } from './deps.js';

/** How often an idle stream sends a comment, so proxies and clients keep it open. */
const KEEP_ALIVE_MS = 15_000;

/** Open event streams, ended when the server closes. */
export type OpenStreams = Set<ServerResponse>;

function open(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': mrtq transitions\n\n');
}

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * `GET /events`: server-sent events. `ready` once every job folder and batch status has been
 * read (transitions after it are seen), then one `transition` event per observed change
 * `{kind, id, from, to, at}`. No replay: a client that reconnects sees transitions from then on.
 */
export function eventsRoute(ctx: ApiContext, streams: OpenStreams): RouteSpec {
  return {
    method: 'GET',
    url: '/events',
    tag: 'events',
    summary:
      'Server-sent events: `ready`, then `transition` {kind, id, from, to, at} for every job and batch ' +
      'state change any process makes (fast consecutive changes of one item may arrive merged)',
    produces: 'text/event-stream',
    schema: {},
    handler: (request, reply) => {
      reply.hijack();
      const res = reply.raw;
      open(res);
      streams.add(res);
      const stop = ctx.feed.subscribe({
        ready: () => res.write(frame('ready', {})),
        transition: (transition) => res.write(frame('transition', transition)),
        error: (err: unknown) => {
          request.log.warn({ err }, 'event stream failed');
          res.end(frame('error', { message: 'the event stream failed; reconnect' }));
        },
      });
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      res.on('close', () => {
        clearInterval(keepAlive);
        stop();
        streams.delete(res);
      });
      return Promise.resolve(reply);
    },
  };
}
