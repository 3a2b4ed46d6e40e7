import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { HttpProblem } from './errors.js';

/** The dashboard's files: plain HTML, CSS and JavaScript modules, nothing fetched from elsewhere. */
export const UI_DIR = join(import.meta.dirname, 'ui', 'static');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

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

function servedFiles(): Map<string, string> {
  const names = readdirSync(UI_DIR).filter((name) => TYPES[extname(name)] !== undefined);
  return new Map(names.map((name) => [name, join(UI_DIR, name)]));
}

/**
 * The operator's dashboard at `/ui` (`/` redirects there): one page whose views are addressed by
 * the URL fragment (`/ui#/batches/bid0000000001`), so the server serves a fixed set of files and
 * nothing else. It is a client of this API; it has no routes of its own beyond its files.
 */
export function registerUi(app: FastifyInstance): void {
  const files = servedFiles();
  const send = async (reply: FastifyReply, name: string): Promise<FastifyReply> => {
    const path = files.get(name);
    if (path === undefined) throw new HttpProblem(404, 'NOT_FOUND', `no file /ui/${name}`);
    return reply
      .type(TYPES[extname(name)] ?? 'application/octet-stream')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(await readFile(path));
  };
  app.get('/', (_request, reply) => reply.redirect('/ui'));
  app.get('/ui', (_request, reply) => send(reply, 'index.html'));
  app.get('/ui/', (_request, reply) => send(reply, 'index.html'));
  app.get('/ui/:file', (request, reply) => send(reply, (request.params as { file: string }).file));
}
