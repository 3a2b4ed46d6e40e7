import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type preValidationAsyncHookHandler,
} from 'fastify';
import { createApiContext } from './api-context.js';
import { registerCredentials, withoutToken } from './auth.js';
import type { ApiContext, HttpApiDeps, RouteSpec } from './deps.js';
import { toHttpError } from './errors.js';
import { EVENT_STREAM, eventsRoute } from './events/route.js';
import { documentation, registerOpenApi } from './openapi.js';
import { auditRefusals, withAudit } from './audit.js';
import { accessRoutes } from './routes/access.js';
import { adminRoutes } from './routes/admin.js';
import { bulkRoutes } from './routes/bulk.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { healthRoutes } from './routes/health.js';
import { withItemDetails } from './routes/item-details.js';
import { registerIngestQueue } from './merritt/ingest-queue.js';
import { itemRoutes } from './routes/items.js';
import { registerPoster } from './merritt/poster.js';
import { registerUi } from './routes/ui.js';
import { searchRoutes } from './routes/search.js';
import { rollupRoutes } from './routes/rollups.js';
import { metricsHistoryRoutes, registerUiVendor } from './routes/metrics-history.js';
import { windowRoutes } from './routes/windows.js';
import { policyRoutes } from './routes/policies.js';
import { alertRoutes } from './routes/alerts.js';
import { recordRoutes } from './routes/records.js';
import { whoamiRoute } from './routes/whoami.js';
import { guardsOf, type GuardContext } from './route-guards.js';
import { anyObject, errorBody } from './schemas.js';

/** Version of the API the OpenAPI document describes. */
export const API_VERSION = '1.0.0';

/** Largest request body accepted (a submission is a few hundred bytes). */
const BODY_LIMIT = 64 * 1024;

/** `GET /openapi.json`: the document @fastify/swagger builds from the routes registered by serveRoutes. */
export function openApiRoute(): RouteSpec {
  return {
    method: 'GET',
    url: '/openapi.json',
    tag: 'health',
    summary: 'This OpenAPI document (built by @fastify/swagger from the schemas the routes validate with)',
    schema: { response: { 200: anyObject } },
    handler: (request) => Promise.resolve(request.server.swagger()),
  };
}

/** Every route of the API, the OpenAPI document's own route included. */
export function apiRoutes(ctx: ApiContext): RouteSpec[] {
  const routes = [
    ...healthRoutes(ctx),
    ...withItemDetails(ctx, itemRoutes(ctx)),
    ...bulkRoutes(ctx),
    ...adminRoutes(ctx),
    ...accessRoutes(ctx),
    eventsRoute(ctx),
    ...dashboardRoutes(ctx),
    ...searchRoutes(ctx),
    ...rollupRoutes(ctx),
    ...metricsHistoryRoutes(ctx),
    ...windowRoutes(ctx),
    ...policyRoutes(ctx),
    ...alertRoutes(ctx),
    ...recordRoutes(ctx),
    whoamiRoute(),
  ];
  routes.push(openApiRoute());
  return withAudit(ctx, routes);
}

/** An operator action may come without a body: validate it as `{}` (a body with required fields stays required). */
function defaultBody(spec: RouteSpec): preValidationAsyncHookHandler | undefined {
  const required = spec.schema.body?.required;
  if (!spec.schema.body || (Array.isArray(required) && required.length > 0)) return undefined;
  return (request) => {
    request.body ??= {};
    return Promise.resolve();
  };
}

function register(app: FastifyInstance, spec: RouteSpec, ctx: GuardContext): void {
  const errors = { '4xx': errorBody, '5xx': errorBody };
  const preValidation = defaultBody(spec);
  const { onRequest, preHandler } = guardsOf(spec, ctx);
  app.route({
    method: spec.method,
    url: spec.url,
    schema: { ...spec.schema, response: { ...spec.schema.response, ...errors }, ...documentation(spec) },
    config: { action: spec.action, produces: spec.produces, mutating: spec.mutating === true },
    // HEAD of an event stream would never end.
    exposeHeadRoute: spec.method === 'GET' && spec.produces !== EVENT_STREAM,
    onRequest,
    ...(preValidation ? { preValidation } : {}),
    ...(preHandler ? { preHandler } : {}),
    handler: spec.handler,
  });
}

/**
 * Serves `routes` with their guards (the role each needs, see route-guards.ts), and documents
 * them: every RouteSpec served here is in the OpenAPI document (see openapi.ts), whoever added it.
 */
export function serveRoutes(app: FastifyInstance, routes: readonly RouteSpec[], ctx: GuardContext): void {
  // The document sees only routes registered after @fastify/swagger has loaded: in a plugin after it.
  registerOpenApi(app, API_VERSION);
  registerCredentials(app, ctx.credentials);
  void app.register((api, _options, done) => {
    for (const spec of routes) register(api, spec, ctx);
    done();
  });
}

/** The one place errors become answers (see toHttpError); unknown routes answer 404 the same way. */
function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const action = (request.routeOptions.config as { action?: string } | undefined)?.action;
    const answer = toHttpError(err, action);
    const url = withoutToken(request.url);
    if (answer.internal) request.log.error({ err, url }, 'request failed');
    else request.log.debug({ err: answer.body, url }, 'request refused');
    return reply
      .code(answer.status)
      .headers(answer.headers ?? {})
      .send(answer.body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'NOT_FOUND', message: `no route ${request.method} ${request.url}` }),
  );
}

/**
 * The HTTP API over the queue store and (optionally) this process's engine: health, metrics,
 * submissions, lists, operator actions, OpenAPI and server-sent transition events. Every route
 * calls the store; the API holds no queue logic of its own. Each route needs a role (RouteSpec.role:
 * reads none, submissions `submit`, operator actions `operator` or `admin`), shown by a named
 * credential (src/auth; 403 for everything that changes the queue when none is configured). The
 * operator's dashboard, a client of these routes, is served at `/ui`.
 */
export function createHttpApi(deps: HttpApiDeps): FastifyInstance {
  // Typed as fastify's logger so the instance is a plain FastifyInstance.
  const logger: FastifyBaseLogger = deps.log.child({ component: 'http' });
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    // Bodies are checked strictly: "42" is not a number and an unknown field is an error.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    bodyLimit: BODY_LIMIT,
  });
  const { ctx, close } = createApiContext(deps);
  installErrorHandling(app);
  auditRefusals(app, ctx);
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    ctx.counters.inc('mrtq_http_requests_total', { method: request.method, route, status });
    const url = withoutToken(request.url);
    request.log.debug({ method: request.method, url, status, ms: reply.elapsedTime }, 'request');
    done();
  });
  // Event streams never end by themselves: end them, or close() would wait for them forever.
  app.addHook('preClose', (done) => {
    ctx.events.closeAll();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    close();
    done();
  });
  serveRoutes(app, apiRoutes(ctx), ctx);
  // Merritt's front door (`/poster/*`, `/state`, `/help`): its own forms and errors.
  registerPoster(app, ctx);
  registerUi(app);
  registerUiVendor(app);
  if (deps.ingestQueueRoot !== undefined) registerIngestQueue(app, deps.ingestQueueRoot);
  return app;
}
