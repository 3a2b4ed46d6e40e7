import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpProblem } from './errors.js';

const CHALLENGE = 'Bearer realm="mrtq"';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The check every mutating route runs before anything else (before validation, so an
 * unauthenticated caller learns nothing about the body): `Authorization: Bearer <token>`.
 * Without a configured token mutating routes are refused (403): an API that changes the queue
 * must not be open by accident.
 */
export function bearerGuard(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = token === undefined ? undefined : digest(token);
  return (request) => {
    const problem = refusal(expected, request.headers.authorization);
    return problem ? Promise.reject(problem) : Promise.resolve();
  };
}

function refusal(expected: Buffer | undefined, header: string | undefined): HttpProblem | undefined {
  if (expected === undefined) {
    return new HttpProblem(
      403,
      'FORBIDDEN',
      'this API is read-only: set MRTQ_API_TOKEN to enable submissions and operator actions',
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) {
    return new HttpProblem(401, 'UNAUTHORIZED', 'send Authorization: Bearer <token>', {
      'www-authenticate': CHALLENGE,
    });
  }
  // Compare digests: equal length and constant time, whatever the caller sent.
  if (timingSafeEqual(digest(match[1] as string), expected)) return undefined;
  return new HttpProblem(401, 'UNAUTHORIZED', 'the bearer token is not valid', {
    'www-authenticate': `${CHALLENGE}, error="invalid_token"`,
  });
}
