import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor, Channel, Role } from '../auth/actor.js';
import type { CredentialStore } from '../auth/credential-store.js';
import type { Credential } from '../auth/credentials-file.js';
import { roleRefusal } from '../auth/permission.js';
import { HttpProblem } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request: set by the guards when it came with a valid credential (src/auth). */
    actor?: Actor;
  }
}

const CHALLENGE = 'Bearer realm="mrtq"';

export type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** What @fastify/bearer-auth reads of a request: its Authorization header (and its logger). */
type Presented = Pick<FastifyRequest, 'log'> & { raw: { headers: { authorization?: string } } };

/** The credential each accepted presentation matched, handed from the library's `auth` callback. */
const matched = new WeakMap<object, Credential>();

const isBearer = (authorization: string | undefined): boolean => /^Bearer\s+\S/i.test(authorization ?? '');

/** `?token=`: EventSource cannot send headers. */
function queryTokenOf(request: FastifyRequest): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** Where a request comes from: the dashboard says so in a header (ui/api.js); else the API. */
export function channelOf(request: FastifyRequest): Channel {
  return request.headers['x-mrtq-client'] === 'dashboard' ? 'dashboard' : 'api';
}

/** The actor a credential makes of a request: its name, role and collections, never its secret. */
export function credentialActor(credential: Credential, via: Channel): Actor {
  const { name, role, collections } = credential;
  return { name, role, ...(collections ? { collections } : {}), via };
}

/**
 * The library's refusal as this API's 401: a request with no bearer credential (no header, or
 * another scheme) is told what to send; one with a wrong token is told it is not valid.
 */
function refusal(err: Error & { code?: string }, presented: Presented, missing: string): Error {
  if (!err.code?.startsWith('FST_BEARER_AUTH_')) return err;
  if (!isBearer(presented.raw.headers.authorization))
    return new HttpProblem(401, 'UNAUTHORIZED', missing, { 'www-authenticate': CHALLENGE });
  return new HttpProblem(401, 'UNAUTHORIZED', 'the bearer token is not valid', {
    'www-authenticate': `${CHALLENGE}, error="invalid_token"`,
  });
}

/**
 * The credential of the bearer token `presented` carries, by @fastify/bearer-auth's parsing of the
 * header and the store's comparison (see registerCredentials); a 401 when there is none.
 */
function verify(request: FastifyRequest, reply: FastifyReply, presented: Presented, missing: string) {
  const check = request.server.verifyBearerAuth;
  if (!check) return Promise.reject(new Error('@fastify/bearer-auth is not registered'));
  return new Promise<Credential>((resolve, reject) =>
    check(presented as FastifyRequest, reply, (err) =>
      err ? reject(refusal(err, presented, missing)) : resolve(matched.get(presented)!),
    ),
  );
}

/** The credential of the request's bearer token (Merritt's front door asks for it itself); a 401 without. */
export function bearerCredential(request: FastifyRequest, reply: FastifyReply): Promise<Credential> {
  return verify(request, reply, request, 'send Authorization: Bearer <token>');
}

/**
 * Declares `request.actor` and registers @fastify/bearer-auth to compare tokens with the store
 * (it adds no hook of its own: which routes need a credential is the guards' decision).
 */
export function registerCredentials(app: FastifyInstance, store: CredentialStore): void {
  app.decorateRequest('actor', undefined);
  void app.register(bearerAuth, {
    keys: [],
    auth: async (key: string, presented: FastifyRequest) => {
      const credential = await store.verifyToken(key);
      if (credential) matched.set(presented, credential);
      return credential !== undefined;
    },
    addHook: false,
    // `bearer` in any case, as RFC 6749 allows.
    specCompliance: 'rfc6749',
    // Refusals are logged once, by the error handler (at debug); the token never is.
    verifyErrorLogLevel: 'trace',
  });
}

/** How a route is guarded: the least role it needs (none: open), and whether it is a stream. */
export interface GuardOptions {
  needed: Role | undefined;
  action: string;
  /** An event stream: the token may come as `?token=` (EventSource cannot send headers). */
  stream: boolean;
}

const READ_ONLY =
  'this API is read-only: set MRTQ_CREDENTIALS (mrtq credentials add) or MRTQ_API_TOKEN to enable submissions and operator actions';

/**
 * The check a route runs before anything else (before the body is read, so a caller without the
 * role learns nothing about it). A route that needs no role is open, but a bearer token sent to it
 * must be valid (401 otherwise) and names the caller. A route that needs one takes a bearer token
 * whose credential has that role (401 without a valid one, 403 naming the role needed). With no
 * credentials configured nothing changes the queue (403) and what needs only `read` is open.
 */
export function roleGuard(store: CredentialStore, options: GuardOptions): Guard {
  const missing = options.stream
    ? 'send Authorization: Bearer <token>, or ?token=<token>'
    : 'send Authorization: Bearer <token>';
  return async (request, reply) => {
    const { needed } = options;
    if (!store.configured) {
      if (needed === undefined || needed === 'read') return;
      throw new HttpProblem(403, 'FORBIDDEN', READ_ONLY);
    }
    const query = options.stream ? queryTokenOf(request) : undefined;
    const header = isBearer(request.headers.authorization);
    if (needed === undefined && !header && query === undefined) return;
    // The query token is checked as the header it stands for, by the same library call.
    const presented: Presented =
      !header && query !== undefined
        ? { log: request.log, raw: { headers: { authorization: `Bearer ${query}` } } }
        : request;
    const actor = credentialActor(await verify(request, reply, presented, missing), channelOf(request));
    request.actor = actor;
    const refused = needed === undefined ? undefined : roleRefusal(actor, needed, options.action);
    if (refused) throw new HttpProblem(403, 'FORBIDDEN', refused);
  };
}

/** `url` with the value of a `token` query parameter hidden, for logs. */
export function withoutToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/g, '$1…');
}
