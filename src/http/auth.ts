import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpProblem } from './errors.js';

const CHALLENGE = 'Bearer realm="mrtq"';

type Guard = (request: FastifyRequest) => Promise<void>;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function bearerOf(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

/** `?token=`: EventSource cannot send headers. */
function queryTokenOf(request: FastifyRequest): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** Undefined when `presented` is the token; else the 401 to answer, `missing` saying what to send. */
function refusal(expected: Buffer, presented: string | undefined, missing: string): HttpProblem | undefined {
  if (presented === undefined)
    return new HttpProblem(401, 'UNAUTHORIZED', missing, { 'www-authenticate': CHALLENGE });
  // Compare digests: equal length and constant time, whatever the caller sent.
  if (timingSafeEqual(digest(presented), expected)) return undefined;
  return new HttpProblem(401, 'UNAUTHORIZED', 'the bearer token is not valid', {
    'www-authenticate': `${CHALLENGE}, error="invalid_token"`,
  });
}

const answer = (problem: HttpProblem | undefined): Promise<void> =>
  problem ? Promise.reject(problem) : Promise.resolve();

/**
 * The check every mutating route runs before anything else (before validation, so an
 * unauthenticated caller learns nothing about the body): `Authorization: Bearer <token>`.
 * Without a configured token mutating routes are refused (403): an API that changes the queue
 * must not be open by accident.
 */
export function bearerGuard(token: string | undefined): Guard {
  const expected = token === undefined ? undefined : digest(token);
  return (request) => {
    if (expected === undefined) {
      return Promise.reject(
        new HttpProblem(
          403,
          'FORBIDDEN',
          'this API is read-only: set MRTQ_API_TOKEN to enable submissions and operator actions',
        ),
      );
    }
    return answer(refusal(expected, bearerOf(request), 'send Authorization: Bearer <token>'));
  };
}

/**
 * The check of streaming routes (`/events`): each open stream holds memory and a connection for
 * as long as its client stays, so with a token configured only its holders may open one, by
 * `Authorization: Bearer <token>` or, for EventSource (which cannot send headers), `?token=`.
 * Without a configured token streams stay open to all, like the other reads.
 */
export function streamGuard(token: string | undefined): Guard {
  const expected = token === undefined ? undefined : digest(token);
  return (request) => {
    if (expected === undefined) return Promise.resolve();
    const presented = bearerOf(request) ?? queryTokenOf(request);
    return answer(refusal(expected, presented, 'send Authorization: Bearer <token>, or ?token=<token>'));
  };
}

/** `url` with the value of a `token` query parameter hidden, for logs. */
export function withoutToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/g, '$1…');
}
