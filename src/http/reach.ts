import type { FastifyRequest } from 'fastify';
import type { Reach } from '../auth/permission.js';
import { loadBatch } from '../queue/batches/load.js';
import { loadJob } from '../queue/jobs/load.js';
import { isQueueError } from '../queue/tree/errors.js';
import type { ApiContext, RouteReach } from './deps.js';

type ReachContext = Pick<ApiContext, 'queue' | 'profiles'>;

type Fields = Record<string, unknown>;

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The collection of an item read from ZooKeeper: a job's configuration names it (as the fair
 * shares read it, src/engine/shares/job-keys.ts), a batch's submission too. A missing item is the
 * handler's 404 all the same; an unreadable one, or one naming no collection, is not known.
 */
async function itemCollection(read: () => Promise<string | undefined>, item: string): Promise<Reach> {
  try {
    const collection = await read();
    return collection === undefined ? { unknown: item } : { collection };
  } catch (err) {
    if (isQueueError(err, 'ITEM_INVALID')) return { unknown: item };
    throw err;
  }
}

/** A submission's collection: the one it names, else its profile's (as the submit routes decide). */
async function submissionCollection(ctx: ReachContext, request: FastifyRequest): Promise<Reach> {
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Fields;
  const query = (request.query ?? {}) as Fields;
  const named = textOf(body.collection);
  if (named !== undefined) return { collection: named };
  const profile = textOf(body.profile) ?? textOf(query.profile);
  if (profile === undefined) return { unknown: 'the submission' };
  return { collection: (await ctx.profiles.resolve(profile)).collection };
}

/**
 * What a request acts on, as far as collections go (see RouteSpec.reach); read only for callers
 * limited to collections, after the request was validated.
 */
export async function reachOf(
  ctx: ReachContext,
  reach: RouteReach | undefined,
  request: FastifyRequest,
): Promise<Reach> {
  const params = (request.params ?? {}) as Record<string, string>;
  switch (reach) {
    case 'job': {
      const jid = params.jid!;
      const read = async () =>
        (await loadJob(ctx.queue, jid, { bidOptional: true })).configuration.collection;
      return itemCollection(read, `job ${jid}`);
    }
    case 'batch': {
      const bid = params.bid!;
      return itemCollection(
        async () => (await loadBatch(ctx.queue, bid)).submission.collection,
        `batch ${bid}`,
      );
    }
    case 'collection':
      return { collection: params.mnemonic! };
    case 'submission':
      return submissionCollection(ctx, request);
    case 'bulk': {
      const collection = textOf((request.body as Fields | undefined)?.collection);
      return collection === undefined
        ? { everything: true, hint: 'name one of yours as the filter\'s "collection"' }
        : { collection };
    }
    default:
      return { everything: true };
  }
}
