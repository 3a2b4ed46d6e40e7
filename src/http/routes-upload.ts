import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBatch } from '../queue/batch-create.js';
import { withCallerContext } from '../telemetry/trace-context.js';
import { parseCheckm } from '../steps/ingest/checkm.js';
import type { ApiContext, RouteSpec } from './deps.js';
import { HttpProblem } from './errors.js';
import { submitted, uploadQuery, type UploadQuery } from './schemas.js';

/**
 * `POST /batches/manifest`: a checkm manifest in the body (text/plain) is checked, written under
 * the upload directory (inside the `file://` roots) and submitted as a `file://` payload, so an
 * engine on any host sharing that directory fetches it like any other payload.
 */
export function uploadRoute(ctx: ApiContext): RouteSpec {
  return {
    method: 'POST',
    url: '/batches/manifest',
    tag: 'batches',
    summary: 'Submit a batch by uploading its checkm manifest (text/plain)',
    mutating: true,
    consumes: 'text/plain',
    schema: {
      querystring: uploadQuery,
      body: { type: 'string', minLength: 1 },
      response: { 200: submitted, 201: submitted },
    },
    handler: async (request, reply) => {
      if (!ctx.uploadDir)
        throw new HttpProblem(501, 'UPLOADS_OFF', 'this server takes no manifest uploads (no file roots)');
      const query = request.query as UploadQuery;
      const text = request.body as string;
      try {
        parseCheckm(text, 'uploaded manifest');
      } catch (err) {
        throw new HttpProblem(400, 'MANIFEST_INVALID', (err as Error).message, {}, 'body');
      }
      const profile = await ctx.profiles.resolve(query.profile);
      const uuid = query.uuid ?? randomUUID();
      const file = join(ctx.uploadDir, `${uuid}.checkm`);
      await mkdir(ctx.uploadDir, { recursive: true });
      await writeFile(file, text);
      await ctx.ensureTree();
      const { bid, created } = await withCallerContext(request.headers, () =>
        createBatch(ctx.queue, {
          profile_name: query.profile,
          submitter: query.submitter,
          payload_url: pathToFileURL(file).href,
          type: query.type,
          submission_mode: 'add',
          submissionDate: ctx.queue.now().toISOString(),
          batchID: uuid,
          collection: profile.collection,
        }),
      );
      void reply.code(created ? 201 : 200).header('location', `/batches/${bid}`);
      return { bid, uuid, created };
    },
  };
}
