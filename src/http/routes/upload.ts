import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createBatch, type CreatedBatch } from '../../queue/batches/create.js';
import { loadBatch } from '../../queue/batches/load.js';
import { isQueueError, type QueueError } from '../../queue/tree/errors.js';
import type { Submission } from '../../queue/tree/records.js';
import { withCallerContext } from '../../telemetry/trace-context.js';
import { parseCheckm } from '../../steps/formats/checkm.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { HttpProblem } from '../errors.js';
import { submitted, uploadQuery, type UploadQuery } from '../schemas.js';
import { uploadFile, type UploadFile } from './upload-store.js';

/** Whether the batch that holds the uuid uses `file` as its payload (it may, being the same bytes). */
async function claimUses(ctx: ApiContext, conflict: QueueError, file: UploadFile): Promise<boolean> {
  if (conflict.item === undefined) return true; // not knowing, keep the file
  const winner = await loadBatch(ctx.queue, conflict.item).catch(() => undefined);
  return winner === undefined || winner.submission.payload_url === pathToFileURL(file.path).href;
}

/**
 * Submits `submission` with the upload as its payload. The file is stored only once the uuid is
 * found unclaimed; when the uuid went to another submission meanwhile, a file this request
 * created is removed again, unless the winner is the same bytes and uses it.
 */
export async function submitUpload(
  ctx: ApiContext,
  file: UploadFile,
  submission: Submission,
): Promise<CreatedBatch> {
  try {
    return await createBatch(ctx.queue, submission, { beforeCreate: () => file.store() });
  } catch (err) {
    if (isQueueError(err, 'CONFLICT') && !(await claimUses(ctx, err, file))) await file.discard();
    throw err;
  }
}

/**
 * `POST /batches/manifest`: a checkm manifest in the body (text/plain) is checked, written under
 * the upload directory (inside the `file://` roots) and submitted as a `file://` payload, so an
 * engine on any host sharing that directory fetches it like any other payload. Uploads are
 * immutable: the same upload under a known uuid answers its batch, another one is refused (409),
 * and neither changes or leaves behind a file (see {@link uploadFile}).
 */
export function uploadRoute(ctx: ApiContext): RouteSpec {
  return {
    method: 'POST',
    url: '/batches/manifest',
    tag: 'batches',
    summary: 'Submit a batch by uploading its checkm manifest (text/plain)',
    mutating: true,
    role: 'submit',
    reach: 'submission',
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
      const uuid = query.uuid ?? randomUUID();
      const file = uploadFile(ctx.uploadDir, uuid, text);
      const profile = await ctx.profiles.resolve(query.profile);
      await ctx.ensureTree();
      const { bid, created } = await withCallerContext(request.headers, () =>
        submitUpload(ctx, file, {
          profile_name: query.profile,
          submitter: query.submitter,
          payload_url: pathToFileURL(file.path).href,
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
