import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from './errors.js';

const CHALLENGE = 'Bearer realm="mrtq"';

type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** What @fastify/bearer-auth reads of a request: its Authorization header (and its logger). */
type Presented = Pick<FastifyRequest, 'log'> & { raw: { headers: { authorization?: string } } };

const isBearer = (authorization: string | undefined): boolean => /^Bearer\s+\S/i.test(authorization ?? '');

/** `?token=`: EventSource cannot send headers. */
function queryTokenOf(request: FastifyRequest): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' && token !== '' ? token : undefined;
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

/** Runs @fastify/bearer-auth's check (timing-safe compare with the configured token) on `presented`. */
function verify(request: FastifyRequest, reply: FastifyReply, presented: Presented, missing: string) {
  const check = request.server.verifyBearerAuth;
  if (!check) return Promise.reject(new Error('@fastify/bearer-auth is not registered'));
  return new Promise<void>((resolve, reject) =>
    check(presented as FastifyRequest, reply, (err) =>
      err ? reject(refusal(err, presented, missing)) : resolve(),
    ),
  );
}

/**
 * Registers @fastify/bearer-auth with the configured token, for the guards below to call (it adds
 * no hook of its own: which routes need the token is the guards' decision). Nothing without a
 * token: mutating routes are then refused and streams open.
 */
export function registerBearerAuth(app: FastifyInstance, token: string | undefined): void {
  if (token === undefined) return;
  void app.register(bearerAuth, {
    keys: [token],
    addHook: false,
    // `bearer` in any case, as RFC 6749 allows.
    specCompliance: 'rfc6749',
    // Refusals are logged once, by the error handler (at debug).
    verifyErrorLogLevel: 'trace',
  });
}

/**
 * The check every mutating route runs before anything else (before validation, so an
 * unauthenticated caller learns nothing about the body): `Authorization: Bearer <token>`.
 * Without a configured token mutating routes are refused (403): an API that changes the queue
 * must not be open by accident.
 */
export function bearerGuard(token: string | undefined): Guard {
  return (request, reply) => {
    if (token === undefined) {
      return Promise.reject(
        new HttpProblem(
          403,
          'FORBIDDEN',
          'this API is read-only: set MRTQ_API_TOKEN to enable submissions and operator actions',
        ),
      );
    }
    return verify(request, reply, request, 'send Authorization: Bearer <token>');
  };
}

/**
 * The check of streaming routes (`/events`): each open stream holds memory and a connection for
 * as long as its client stays, so with a token configured only its holders may open one, by
 * `Authorization: Bearer <token>` or, for EventSource (which cannot send headers), `?token=`.
 * Without a configured token streams stay open to all, like the other reads.
 */
export function streamGuard(token: string | undefined): Guard {
  return (request, reply) => {
    if (token === undefined) return Promise.resolve();
    const query = queryTokenOf(request);
    // The query token is checked as the header it stands for, by the same library call.
    const presented: Presented =
      !isBearer(request.headers.authorization) && query !== undefined
        ? { log: request.log, raw: { headers: { authorization: `Bearer ${query}` } } }
        : request;
    return verify(request, reply, presented, 'send Authorization: Bearer <token>, or ?token=<token>');
  };
}

/** `url` with the value of a `token` query parameter hidden, for logs. */
export function withoutToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/g, '$1…');
}
