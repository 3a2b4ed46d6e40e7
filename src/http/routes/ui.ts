import { extname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packagePath } from '../../package-root.js';

/**
 * The dashboard's files: plain HTML, CSS and JavaScript modules, nothing fetched from elsewhere.
 * They are not compiled, so they are found from the package root, from the sources and from a
 * build (dist/) alike.
 */
export const UI_DIR = packagePath('ui');

/**
 * Only this server's own files run or load: no inline script or style, no other origin. The
 * page talks to the API on the same origin (fetch and the `/events` stream).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Revalidated at each use (ETag, Last-Modified: a 304 when unchanged), so an upgrade shows at once. */
function uiHeaders(reply: FastifyReply, path: string): void {
  // RFC 9239's type for JavaScript (the library's table still says application/javascript).
  if (extname(path) === '.js') void reply.type('text/javascript; charset=utf-8');
  void reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

/**
 * The operator's dashboard at `/ui` (`/` redirects there): one page whose views are addressed by
 * the URL fragment (`/ui#/batches/bid0000000001`), served by @fastify/static. `wildcard: false`:
 * a route per file found at start, so the server serves that fixed set and nothing else (no
 * directory listing, no path outside the folder, no file added later); `/ui` and `/ui/` serve
 * index.html. This instance decorates the reply (`reply.sendFile`, for `/ui`): other instances
 * of the plugin (the vendored chart library) register with `decorateReply: false`. The dashboard
 * is a client of this API; it has no routes of its own beyond its files.
 */
export function registerUi(app: FastifyInstance): void {
  app.get('/', (_request, reply) => reply.redirect('/ui'));
  app.get('/ui', (_request, reply) => reply.sendFile('index.html'));
  void app.register(fastifyStatic, {
    root: UI_DIR,
    prefix: '/ui/',
    wildcard: false,
    index: ['index.html'],
    list: false,
    // Our cache-control below; ETag and Last-Modified are on (the plugin's defaults).
    cacheControl: false,
    setHeaders: uiHeaders,
  });
}
