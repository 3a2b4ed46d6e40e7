import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialStore } from '../../auth/credential-store.js';
import type { Credential } from '../../auth/credentials-file.js';
import { collectionRefusal, roleRefusal } from '../../auth/permission.js';
import { bearerCredential, credentialActor, type Guard } from '../auth.js';
import { HttpProblem } from '../errors.js';
import { basicCredentialsOf } from './basic-auth.js';
import { MerrittError } from './exc.js';

const BASIC_CHALLENGE = 'Basic realm="mrtq", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="mrtq"';

const NOT_CONFIGURED =
  'this server takes no submissions: set MRTQ_CREDENTIALS (mrtq credentials add), MRTQ_BASIC_AUTH or MRTQ_API_TOKEN';

/** USER_NOT_AUTHORIZED (403): the caller is known but may not do this. */
const forbidden = (detail: string): MerrittError =>
  new MerrittError('USER_NOT_AUTHORIZED', detail, { httpStatus: 403 });

/** The credential of the request's basic user or bearer token, or a 401 saying what this server takes. */
async function presented(
  request: FastifyRequest,
  reply: FastifyReply,
  store: CredentialStore,
): Promise<Credential> {
  const accepts = await store.accepts();
  const challenges = [
    ...(accepts.basic ? [BASIC_CHALLENGE] : []),
    ...(accepts.token ? [BEARER_CHALLENGE] : []),
  ];
  const refused = (detail: string): MerrittError =>
    new MerrittError('USER_NOT_AUTHENTICATED', detail, { headers: { 'www-authenticate': challenges } });
  const authorization = request.headers.authorization ?? '';
  if (/^Basic\s/i.test(authorization)) {
    if (!accepts.basic)
      throw refused(
        'HTTP basic credentials are not configured here (MRTQ_CREDENTIALS, MRTQ_BASIC_AUTH); send the bearer token',
      );
    const given = basicCredentialsOf(authorization);
    const credential = given && (await store.verifyBasic(given.user, given.password));
    if (!credential) throw refused('the user name or password is not valid');
    return credential;
  }
  if (!accepts.token || !/^Bearer\s/i.test(authorization)) {
    const accepted = [
      ...(accepts.basic ? ['HTTP basic credentials'] : []),
      ...(accepts.token ? ['Authorization: Bearer <token>'] : []),
    ];
    throw refused(accepted.length > 0 ? `send ${accepted.join(' or ')}` : 'no credential is configured yet');
  }
  return bearerCredential(request, reply).catch((err: unknown) => {
    throw err instanceof HttpProblem && err.status === 401 ? refused(err.message) : err;
  });
}

/**
 * The check of Merritt's front door, before the form is read: an HTTP basic user (Merritt's
 * clients send basic: mrt-ingest-ruby's `Client`, and the web server in front of mrt-ingest checks
 * them) or a bearer token, whose credential has role `submit` or more. Nothing configured: refused
 * (403), as every route that changes the queue is on a fresh install. Refusals are `exc:`
 * documents: USER_NOT_AUTHENTICATED (401, with the challenges this server takes) or
 * USER_NOT_AUTHORIZED (403). The caller becomes `request.actor`, via `poster`.
 */
export function posterGuard(store: CredentialStore): Guard {
  return async (request, reply) => {
    if (!store.configured) throw forbidden(NOT_CONFIGURED);
    request.actor = credentialActor(await presented(request, reply, store), 'poster');
    const refusal = roleRefusal(request.actor, 'submit', 'submit');
    if (refusal) throw forbidden(refusal);
  };
}

/** A submission to `collection` by a caller limited to others: refused (403) naming the collection. */
export function checkPosterCollection(request: FastifyRequest, collection: string): void {
  const refusal = request.actor && collectionRefusal(request.actor, 'submit', { collection });
  if (refusal) throw forbidden(refusal);
}
