import { randomUUID } from 'node:crypto';
import { createBatch } from '../../queue/batches/create.js';
import { withCallerContext } from '../../telemetry/trace-context.js';
import { QueueError } from '../../queue/tree/errors.js';
import {
  listBatches,
  listJobs,
  showItem,
  type BatchFilter,
  type BatchSummary,
  type JobFilter,
  type Listing,
  type Page,
} from '../../views/listing/listing.js';
import type { SortKey, SortOrder } from '../../views/listing/sort.js';
import { batchProgress } from '../../views/rollups/batches.js';
import type { Submission } from '../../queue/tree/records.js';
import { parseDigest } from '../../steps/formats/digest.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { HttpProblem } from '../errors.js';
import { uploadRoute } from './upload.js';
import {
  anyObject,
  batchList,
  batchQuery,
  batchShowQuery,
  jobList,
  jobQuery,
  params,
  submitBody,
  submitted,
  type SubmitBody,
} from '../schemas.js';

/** Default page size of the lists. */
export const DEFAULT_LIMIT = 50;

/** `offset`, `limit`, the cursor `after`, `sort` and `order` from the query (checked by the schema). */
type Paging = { offset?: string; limit?: string; after?: string; sort?: SortKey; order?: SortOrder };

const BARE_ID = /^(?:bid|jid)[0-9]{10}$/;

function pageOf(query: Paging): Page {
  const page: Page = { offset: Number(query.offset ?? 0), limit: Number(query.limit ?? DEFAULT_LIMIT) };
  if (query.after) page.after = query.after;
  if (query.sort) page.sort = { by: query.sort, order: query.order ?? 'asc' };
  else if (query.order)
    throw new HttpProblem(400, 'VALIDATION', 'querystring.order: needs sort', {}, 'querystring.order');
  else if (query.after && !BARE_ID.test(query.after))
    throw new HttpProblem(
      400,
      'VALIDATION',
      'querystring.after: a cursor made under a sort needs the same sort and order',
      {},
      'querystring.after',
    );
  return page;
}

/** The batches of a page with their jobs by state and by progress (no job read: see batchProgress). */
async function withProgress(ctx: ApiContext, listing: Listing<BatchSummary>): Promise<Listing<BatchSummary>> {
  const progress = await batchProgress(
    ctx.queue,
    listing.items.map((batch) => batch.bid),
  );
  return { ...listing, items: listing.items.map((batch) => ({ ...batch, ...progress.get(batch.bid) })) };
}

/** The submission node written for an API submission (the same keys `mrtq submit` writes). */
function submissionOf(body: SubmitBody, collection: string, uuid: string, now: Date): Submission {
  const optional = [
    'erc_who',
    'erc_what',
    'erc_when',
    'erc_where',
    'local_id',
    'primary_id',
    'file_name',
    'digest_type',
    'digest_value',
    'note',
    'notification',
    'notification_format',
  ] as const;
  const submission: Submission = {
    profile_name: body.profile,
    submitter: body.submitter,
    payload_url: body.payloadUrl,
    // Without a type the batch's expansion guesses it from the payload.
    ...(body.type ? { type: body.type } : {}),
    submission_mode: 'add',
    submissionDate: now.toISOString(),
    batchID: uuid,
    collection,
  };
  for (const key of optional) if (body[key] !== undefined) submission[key] = body[key];
  if (body.file_size !== undefined) submission.file_size = Number(body.file_size);
  return submission;
}

function checkDigest(body: SubmitBody): void {
  if (body.digest_type === undefined || body.digest_value === undefined) return;
  const parsed = parseDigest(body.digest_type, body.digest_value);
  if (typeof parsed === 'string')
    throw new HttpProblem(400, 'VALIDATION', `body.digest_value: ${parsed}`, {}, 'body.digest_value');
}

function submitRoute(ctx: ApiContext): RouteSpec {
  return {
    method: 'POST',
    url: '/batches',
    tag: 'batches',
    summary:
      'Submit a batch (pending until an engine takes it); the same submission under a known uuid returns its batch, another one is refused (409)',
    mutating: true,
    role: 'submit',
    reach: 'submission',
    schema: { body: submitBody, response: { 200: submitted, 201: submitted } },
    handler: async (request, reply) => {
      const body = request.body as SubmitBody;
      const profile = await ctx.profiles.resolve(body.profile);
      checkDigest(body);
      await ctx.ensureTree();
      const uuid = body.uuid ?? randomUUID();
      const submission = submissionOf(body, body.collection ?? profile.collection, uuid, ctx.queue.now());
      const { bid, created } = await withCallerContext(request.headers, () =>
        createBatch(ctx.queue, submission),
      );
      ctx.counters.inc('mrtq_batches_submitted_total', { created: String(created) });
      void reply.code(created ? 201 : 200).header('location', `/batches/${bid}`);
      return { bid, uuid, created };
    },
  };
}

function showRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/batches/:id',
      tag: 'batches',
      summary:
        'A batch by bid or uuid: status, submission, report, its jobs by state and progress, and (unless jobs=none) every job ref by folder; GET /jobs?batch= pages and sorts its jobs',
      schema: { params: params.id, querystring: batchShowQuery, response: { 200: anyObject } },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        const { jobs } = request.query as { jobs?: 'all' | 'none' };
        const item = await showItem(ctx.queue, id, { jobRefs: jobs !== 'none' });
        if (item.kind !== 'batch') throw new QueueError('NOT_FOUND', `${id} is not a batch`, id);
        const progress = (await batchProgress(ctx.queue, [item.batch.batchId])).get(item.batch.batchId);
        if (jobs !== 'none') return { ...item, ...progress };
        const { jobs: _refs, ...rest } = item;
        return { ...rest, ...progress };
      },
    },
    {
      method: 'GET',
      url: '/jobs/:jid',
      tag: 'jobs',
      summary: 'A job: status, configuration, identifiers, and who holds its lock',
      schema: { params: params.jid, response: { 200: anyObject } },
      handler: async (request) => showItem(ctx.queue, (request.params as { jid: string }).jid),
    },
  ];
}

function listRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'GET',
      url: '/batches',
      tag: 'batches',
      summary:
        'Batches, newest first or sorted (created, updated, state), filtered by status, profile and submitter; each with its jobs by state and progress',
      schema: { querystring: batchQuery, response: { 200: batchList } },
      handler: async (request) => {
        const query = request.query as Paging & {
          status?: BatchFilter['status'];
          profile?: string;
          submitter?: string;
        };
        const { status, profile, submitter } = query;
        const page = pageOf(query);
        return withProgress(ctx, await listBatches(ctx.queue, { status, profile, submitter }, page));
      },
    },
    {
      method: 'GET',
      url: '/jobs',
      tag: 'jobs',
      summary:
        'Jobs: by state in priority order, else newest first, or sorted (created, updated, priority, state); filtered by batch and collection',
      schema: { querystring: jobQuery(ctx.queue.lifecycle), response: { 200: jobList } },
      handler: async (request) => {
        const query = request.query as Paging & JobFilter;
        const { state, batch, folder, collection } = query;
        return listJobs(ctx.queue, { state, batch, folder, collection }, pageOf(query));
      },
    },
  ];
}

/** Submitting, listing and showing batches and jobs. */
export function itemRoutes(ctx: ApiContext): RouteSpec[] {
  return [submitRoute(ctx), uploadRoute(ctx), ...listRoutes(ctx), ...showRoutes(ctx)];
}
