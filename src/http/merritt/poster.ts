import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../../config/config.js';
import { IntakeError } from '../../steps/intake-errors.js';
import { GUESS_HEAD_BYTES, guessSubmissionKind } from '../../steps/batch/submission-guess.js';
import type { SubmissionKind } from '../../steps/batch/submission-kinds.js';
import { withCallerContext } from '../../telemetry/trace-context.js';
import { withoutToken } from '../auth.js';
import type { ApiContext } from '../deps.js';
import { excDocument, merrittErrorOf, MerrittError } from './exc.js';
import {
  errorForm,
  isRenderedForm,
  renderState,
  requestedForm,
  RENDERED_FORMS,
  type RenderedForm,
  type StateDocument,
} from './format.js';
import { batchStateDocument } from './states.js';
import { checkPosterCollection, posterGuard } from './poster-auth.js';
import { pathObjectId, posterSubmission, readPosterFields, type PosterFields } from './poster-fields.js';
import { readPosterForm, type PosterForm } from './poster-form.js';
import { serviceStateRoute } from './poster-state.js';
import { submitUpload } from '../routes/upload.js';
import { stageUpload } from '../routes/upload-store.js';

/** The longest field a form may have (a long `erc` or `note`), and how many fields. */
const FIELD_BYTES = 1024 * 1024;
const MAX_FIELDS = 200;
/** What a form may take besides its file before its announced length alone refuses it. */
const FORM_ALLOWANCE = 4 * 1024 * 1024;

/** The form each request's answer (or error) is written in, once known. */
const answerForms = new WeakMap<FastifyRequest, string>();

/** A body that announces more than the file limit and the fields together is refused before it is read. */
function refuseLargeBody(request: FastifyRequest, maxBytes: number): void {
  const length = Number(request.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes + FORM_ALLOWANCE)
    throw new MerrittError(
      'REQUEST_INVALID',
      `the upload is larger than this server takes (${maxBytes} bytes, MRTQ_UPLOAD_MAX_BYTES)`,
      { httpStatus: 413 },
    );
}

async function collectionOf(ctx: ApiContext, profile: string): Promise<string> {
  try {
    return (await ctx.profiles.resolve(profile)).collection;
  } catch (err) {
    // mrt-ingest answers an unknown profile with INVALID_OR_MISSING_PARM (500, `ProfileUtil`).
    if (err instanceof IntakeError && err.code === 'PROFILE_UNKNOWN')
      throw new MerrittError('INVALID_OR_MISSING_PARM', `profile not found: ${err.message}`);
    throw err;
  }
}

type Mode = 'add' | 'update';

/** Where uploads go, once the request is found to be one this server can take. */
function uploadDirFor(ctx: ApiContext, request: FastifyRequest, maxBytes: number): string {
  if (!ctx.uploadDir)
    throw new MerrittError(
      'REQUEST_ELEMENT_UNSUPPORTED',
      'this server takes no uploads: no file:// roots are configured (MRTQ_FILE_ROOTS)',
    );
  if (!request.isMultipart())
    throw new MerrittError('REQUEST_INVALID', 'send multipart/form-data, the payload as a file part', {
      httpStatus: 415,
    });
  refuseLargeBody(request, maxBytes);
  return ctx.uploadDir;
}

/** The form the answer is written in (`responseForm`, else `Accept`), remembered for errors. */
function answerFormOf(request: FastifyRequest, form: PosterForm): RenderedForm {
  const asked = requestedForm(request.headers.accept, form.fields.get('responseForm'));
  answerForms.set(request, asked);
  if (!isRenderedForm(asked))
    throw new MerrittError(
      'REQUEST_ELEMENT_UNSUPPORTED',
      `responseForm ${asked}: this server answers in ${RENDERED_FORMS.join(', ')}`,
    );
  return asked;
}

/** The type given, else the one mrt-ingest would guess from the upload's name and first bytes. */
async function kindOf(fields: PosterFields, form: PosterForm, fileName: string): Promise<SubmissionKind> {
  if (fields.type) return fields.type;
  return guessSubmissionKind(fileName, (await form.upload.head(GUESS_HEAD_BYTES)).toString('utf8'));
}

/** A queued submission: its batch, and the answer's form and document. */
interface Queued {
  bid: string;
  uuid: string;
  form: RenderedForm;
  document: StateDocument;
}

/**
 * The form's submission queued: its fields checked, the type guessed from the file when none was
 * given, the upload stored under a name carrying its digest and submitted as its `file://` payload.
 */
async function queueForm(
  ctx: ApiContext,
  request: FastifyRequest,
  form: PosterForm,
  mode: Mode,
): Promise<Queued> {
  const asked = answerFormOf(request, form);
  const fields = readPosterFields(form.fields);
  if (fields.unknown.length > 0)
    request.log.warn({ fields: fields.unknown }, 'form fields not supported: ignored');
  const collection = await collectionOf(ctx, fields.profile);
  checkPosterCollection(request, collection);
  const fileName = fields.fileName ?? form.partName.split(/[/\\]/).pop() ?? form.partName;
  const kind = await kindOf(fields, form, fileName);
  // Merritt's batch id, `bid-<uuid>`, is the batch's uuid here (`/batch-uuids/<uuid>`).
  const uuid = `bid-${randomUUID()}`;
  const file = form.upload.storedAs(uuid, fileName);
  const now = ctx.queue.now();
  const submission = posterSubmission(fields, {
    mode,
    pathId: pathObjectId(request.params as Record<string, string | undefined>),
    kind,
    fileName,
    responseForm: fields.responseForm === undefined ? undefined : asked,
    uuid,
    payloadUrl: pathToFileURL(file.path).href,
    collection,
    now,
  });
  await ctx.ensureTree();
  const { bid, created } = await withCallerContext(request.headers, () =>
    submitUpload(ctx, file, submission),
  );
  ctx.counters.inc('mrtq_batches_submitted_total', { created: String(created) });
  request.log.info({ batchId: bid, uuid, profile: fields.profile, kind, mode }, 'Merritt submission queued');
  const document = batchStateDocument({
    batchID: uuid,
    packageName: fileName,
    userAgent: fields.submitter,
    submissionDate: now,
  });
  return { bid, uuid, form: asked, document };
}

/**
 * One submission: the form read as it arrives (the file streamed to the upload directory),
 * queued, answered with `bat:batchState`. The temporary file is gone before the answer leaves.
 */
async function submit(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  mode: Mode,
  maxBytes: number,
) {
  const dir = uploadDirFor(ctx, request, maxBytes);
  const form = await readPosterForm(request, (source) => stageUpload(dir, source, maxBytes));
  let queued: Queued;
  try {
    queued = await queueForm(ctx, request, form, mode);
  } finally {
    await form.upload.release();
  }
  const { contentType, body } = renderState(queued.document, queued.form);
  // mrt-ingest names the batch in a `BID` header too.
  return reply
    .code(200)
    .header('bid', queued.uuid)
    .header('location', `/batches/${queued.bid}`)
    .type(contentType)
    .send(body);
}

/** Errors of these routes are `exc:` documents in the asked form (xml when it is not one written here). */
function answerError(err: Error, request: FastifyRequest, reply: FastifyReply) {
  const { error, internal } = merrittErrorOf(err);
  const url = withoutToken(request.url);
  if (internal) request.log.error({ err, url }, 'Merritt request failed');
  else request.log.debug({ status: error.httpStatus, detail: error.detail, url }, 'Merritt request refused');
  const form = errorForm(answerForms.get(request) ?? requestedForm(request.headers.accept));
  const { contentType, body } = renderState(excDocument(error), form);
  return reply.code(error.httpStatus).headers(error.headers).type(contentType).send(body);
}

/** Left out of the OpenAPI document: these routes speak Merritt's forms, not this API's JSON. */
const HIDDEN = { hide: true };

/** `submit|add|update`, bare or with `{scheme}/{shoulder}/{objectid}`, each with or without a trailing slash. */
const POSTER_PATHS = ['', '/:scheme/:shoulder/:objectid'].flatMap((tail) => [tail, `${tail}/`]);

/**
 * Merritt's front door, as mrt-ingest's `JerseyPost` serves it for Merritt's UI (mrt-dashboard)
 * and its Ruby client: `POST /poster/{submit,add,update}[/{scheme}/{shoulder}/{objectid}]`
 * taking `multipart/form-data` with the payload as a file part and answering `bat:batchState`,
 * and `GET /state` and `/help` (also under `/poster`). Its own scope: multipart parsing and
 * `exc:` error answers apply to these routes only (the JSON API keeps refusing multipart, 415).
 * Not in the OpenAPI document (hidden: they speak Merritt's forms, not this API's JSON);
 * docs/http.md describes them.
 */
export function registerPoster(app: FastifyInstance, ctx: ApiContext): void {
  const maxBytes = ctx.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES;
  const guard = posterGuard(ctx.credentials);
  void app.register(async (scope) => {
    await scope.register(multipart, {
      // One more byte than the limit reaches stageUpload, which refuses it (413).
      limits: { fileSize: maxBytes + 1, fieldSize: FIELD_BYTES, fields: MAX_FIELDS, parts: MAX_FIELDS + 10 },
      throwFileSizeLimit: false,
    });
    scope.setErrorHandler(answerError);
    const actions: ReadonlyArray<[string, Mode]> = [
      ['submit', 'add'],
      ['add', 'add'],
      ['update', 'update'],
    ];
    for (const [action, mode] of actions)
      for (const tail of POSTER_PATHS)
        scope.post(`/poster/${action}${tail}`, {
          schema: HIDDEN,
          onRequest: guard,
          handler: (request, reply) => submit(ctx, request, reply, mode, maxBytes),
        });
    for (const url of ['/state', '/help', '/poster/state', '/poster/help'])
      scope.get(
        url,
        { schema: HIDDEN },
        serviceStateRoute(ctx, (request, form) => answerForms.set(request, form)),
      );
  });
}
