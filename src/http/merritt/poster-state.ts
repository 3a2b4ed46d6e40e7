import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { packagePath } from '../../package-root.js';
import { heldCollections, isQueuePaused } from '../../queue/locks/queue-pause.js';
import type { ApiContext } from '../deps.js';
import { MerrittError } from './exc.js';
import { isRenderedForm, renderState, requestedForm, RENDERED_FORMS } from './format.js';
import { serviceStateDocument } from './states.js';

let version: string | undefined;

function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return version;
}

/**
 * `GET /state` (and `/help`, which mrt-ingest answers with the same document): the service
 * state in the form `?t=` names (else the `Accept` header's, else xml), as `JerseyPost.getServiceState`
 * answers it; `submissionState` says whether the ingest queue is paused (`frozen`). No
 * credentials: a read, like the API's other reads. `remember` keeps the asked form for errors.
 */
export function serviceStateRoute(
  ctx: ApiContext,
  remember: (request: FastifyRequest, form: string) => void,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  return async (request, reply) => {
    const { t } = request.query as { t?: unknown };
    const form = requestedForm(request.headers.accept, typeof t === 'string' ? t : undefined);
    remember(request, form);
    if (!isRenderedForm(form))
      throw new MerrittError(
        'REQUEST_ELEMENT_UNSUPPORTED',
        `t=${form}: this server answers in ${RENDERED_FORMS.join(', ')}`,
      );
    const [frozen, held] = await Promise.all([
      isQueuePaused(ctx.queue, 'ingest'),
      heldCollections(ctx.queue),
    ]);
    const document = serviceStateDocument({ version: packageVersion(), frozen, heldCollections: held });
    const { contentType, body } = renderState(document, form);
    return reply.type(contentType).send(body);
  };
}
