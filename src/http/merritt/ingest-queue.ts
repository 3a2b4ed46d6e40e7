import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { INGEST_QUEUE_PATH } from '../../steps/services/handoff/handoff.js';
import { isInside, safeRelativePath } from '../../steps/workdir/safe-path.js';
import { HttpProblem } from '../errors.js';

/** The folders of a working directory storage may read: the object's files and the engine's system files. */
const SERVED_FOLDERS: ReadonlySet<string> = new Set(['producer', 'system']);

function notFound(path: string): HttpProblem {
  return new HttpProblem(404, 'NOT_FOUND', `no file ${INGEST_QUEUE_PATH}/${path}`);
}

/**
 * The file `<bid>/<jid>/(producer|system)/…` names below `root`, or NOT_FOUND: no other folder,
 * no `..`, and no symbolic link leading out of the work root.
 */
async function servedFile(root: string, requested: string): Promise<{ path: string; size: number }> {
  let rel: string;
  try {
    rel = safeRelativePath(requested, 'path');
  } catch {
    throw notFound(requested);
  }
  const segments = rel.split('/');
  if (segments.length < 4 || !SERVED_FOLDERS.has(segments[2]!)) throw notFound(requested);
  try {
    const realRoot = await realpath(root);
    const path = await realpath(join(realRoot, rel));
    const info = await stat(path);
    if (!isInside(realRoot, path) || !info.isFile()) throw notFound(requested);
    return { path, size: info.size };
  } catch (err) {
    if (err instanceof HttpProblem) throw err;
    throw notFound(requested);
  }
}

/**
 * `GET /ingestqueue/<bid>/<jid>/…` (and HEAD): the jobs' working directories, read-only, for
 * Merritt's storage service, which fetches a store node's `manifest_url` and the file URLs in
 * it (merritt-protocols.md §1; Merritt's ingest serves its queue directory the same way through
 * its `webapps/ingestqueue` link). No token: mrt-store sends none. Registered whenever
 * MRTQ_PUBLIC_URL is set: a job a Merritt-mode run handed off stays reachable after a switch to
 * standalone (whose embedded store reads such URLs from the work root itself).
 */
export function registerIngestQueue(app: FastifyInstance, root: string): void {
  app.get(`${INGEST_QUEUE_PATH}/*`, async (request: FastifyRequest, reply: FastifyReply) => {
    const requested = (request.params as { '*': string })['*'];
    const file = await servedFile(root, requested);
    return reply
      .type(file.path.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream')
      .header('content-length', file.size)
      .header('x-content-type-options', 'nosniff')
      .send(createReadStream(file.path));
  });
}
