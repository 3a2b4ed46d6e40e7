import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerGuard } from '../auth.js';
import { HttpProblem } from '../errors.js';
import { basicCredentialsOf, type BasicCredentials } from './basic-auth.js';
import { MerrittError } from './exc.js';

type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

const BASIC_CHALLENGE = 'Basic realm="mrtq", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="mrtq"';

/**
 * The check of Merritt's front door, before the form is read: HTTP basic credentials from the
 * configured file (Merritt's clients send basic: mrt-ingest-ruby's `Client`, and the web server
 * in front of mrt-ingest checks them), or this API's bearer token. Neither configured: refused
 * (403), as every route that changes the queue is on a fresh install. Refusals are `exc:`
 * documents: USER_NOT_AUTHENTICATED (401, with the challenges this server takes) or
 * USER_NOT_AUTHORIZED (403).
 */
export function posterGuard(token: string | undefined, basic: BasicCredentials | undefined): Guard {
  const challenges = [
    ...(basic ? [BASIC_CHALLENGE] : []),
    ...(token !== undefined ? [BEARER_CHALLENGE] : []),
  ];
  const refused = (detail: string): MerrittError =>
    new MerrittError('USER_NOT_AUTHENTICATED', detail, { headers: { 'www-authenticate': challenges } });
  const accepted = [
    ...(basic ? ['HTTP basic credentials'] : []),
    ...(token !== undefined ? ['Authorization: Bearer <token>'] : []),
  ].join(' or ');
  const bearer = bearerGuard(token);
  return async (request, reply) => {
    if (!basic && token === undefined) {
      throw new MerrittError(
        'USER_NOT_AUTHORIZED',
        'this server takes no submissions: set MRTQ_BASIC_AUTH (HTTP basic credentials) or MRTQ_API_TOKEN',
        { httpStatus: 403 },
      );
    }
    const authorization = request.headers.authorization;
    if (/^Basic\s/i.test(authorization ?? '')) {
      if (!basic)
        throw refused(
          'HTTP basic credentials are not configured here (MRTQ_BASIC_AUTH); send the bearer token',
        );
      const given = basicCredentialsOf(authorization);
      if (!given || !(await basic.verify(given.user, given.password)))
        throw refused('the user name or password is not valid');
      return;
    }
    if (token === undefined || !/^Bearer\s/i.test(authorization ?? '')) throw refused(`send ${accepted}`);
    try {
      await bearer(request, reply);
    } catch (err) {
      if (err instanceof HttpProblem && err.status === 401) throw refused(err.message);
      throw err;
    }
  };
}
