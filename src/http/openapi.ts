import swagger, { type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { RouteSpec } from './deps.js';
import { EVENT_STREAM } from './events/route.js';
import { neededRole } from './route-guards.js';
import { errorBody, type JsonSchema } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Names the action in a refused transition's message (see RouteSpec.action). */
    action?: string;
    /** Content type of a successful answer when it is not JSON (the document names it). */
    produces?: string;
    /** The route changes the queue: its refusals are audited (see audit.ts). */
    mutating?: boolean;
  }
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** `/jobs/:jid/hold` → `/jobs/{jid}/hold`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `POST /jobs/:jid/hold` → `postJobsJidHold`. */
function operationId(spec: RouteSpec): string {
  const words = spec.url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return spec.method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/**
 * The keys of a route schema that only the OpenAPI document reads (fastify validates with the
 * others): summary, tag, operation id, the credential and role it needs and the body's content
 * type. Every route of the API carries a tag; routes without one (the dashboard's files) are left out.
 */
export function documentation(spec: RouteSpec): FastifySchema {
  const docs: FastifySchema = { summary: spec.summary, tags: [spec.tag], operationId: operationId(spec) };
  const needed = neededRole(spec);
  if (needed === 'read') {
    // Open while no credentials are configured.
    docs.security = [{}, { bearer: [] }, ...(spec.produces === EVENT_STREAM ? [{ queryToken: [] }] : [])];
    docs.description = 'Needs a bearer token (any role) when credentials are configured.';
  } else if (needed !== undefined) {
    docs.security = [{ bearer: [] }];
    docs.description = `Needs a bearer token whose credential has role ${needed} or more.`;
  }
  if (spec.consumes !== undefined) docs.consumes = [spec.consumes];
  return docs;
}

/**
 * A route that answers something other than JSON declares no 200 schema (nothing to serialise):
 * the document still names the content type it answers with.
 */
const transform: SwaggerTransform = ({ schema, url, route }) => {
  const produces = route.config?.produces;
  const response = (schema.response ?? {}) as Record<string, unknown>;
  if (produces === undefined || Object.keys(response).some((status) => status.startsWith('2')))
    return { schema, url };
  const type = produces.split(';')[0]!;
  const description =
    produces === EVENT_STREAM ? 'A stream of server-sent events (text/event-stream), see the summary' : 'OK';
  const ok = { description, content: { [type]: { schema: { type: 'string' } } } };
  return { schema: { ...schema, response: { 200: ok, ...response } }, url };
};

type Operation = {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

/**
 * What the library writes otherwise: a JSON body without required fields is optional (the
 * server reads a missing one as `{}`, see defaultBody in app.ts); errors refer to the one
 * `Error` schema; answers say OK, Created or Error rather than "Default Response".
 */
function amend(operation: Operation): void {
  const body = operation.requestBody;
  const types = Object.keys(body?.content ?? {});
  if (body && types.length === 1 && types[0] === 'application/json') {
    const required = body.content?.['application/json']?.schema?.required;
    body.required = Array.isArray(required) && required.length > 0;
  }
  for (const [status, answer] of Object.entries(operation.responses ?? {})) {
    if (status === '4XX' || status === '5XX') {
      answer.description = 'Error';
      answer.content = { 'application/json': { schema: ERROR_REF } };
    } else if (answer.description === 'Default Response') {
      answer.description = status === '201' ? 'Created' : 'OK';
    }
  }
}

const transformObject: SwaggerTransformObject = (document) => {
  const openapi = (document as { openapiObject: { paths?: Record<string, Record<string, Operation>> } })
    .openapiObject;
  for (const item of Object.values(openapi.paths ?? {}))
    for (const operation of Object.values(item)) amend(operation);
  return openapi;
};

/**
 * Registers @fastify/swagger, which builds the OpenAPI document of every route registered after
 * it (`app.swagger()`) from the very schema objects the routes validate with, so the document
 * cannot drift from what the server does. Routes registered before it are not seen: register it
 * first.
 */
export function registerOpenApi(app: FastifyInstance, version: string): void {
  void app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Merritt ingest queue (mrtq)',
        version,
        description:
          'Submit batches, list and show batches and jobs, operator actions, health, metrics and transition events. ' +
          'Routes that change the queue need `Authorization: Bearer <MRTQ_API_TOKEN>`; so does `/events` when a ' +
          'token is configured (or `?token=<MRTQ_API_TOKEN>`, for EventSource).',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          queryToken: { type: 'apiKey', in: 'query', name: 'token' },
        },
        schemas: { Error: errorBody as Record<string, never> },
      },
    },
    // The dashboard's files and other untagged routes are not part of the API.
    hideUntagged: true,
    // OpenAPI 3.1 is JSON Schema 2020-12: `const` stays `const`.
    convertConstToEnum: false,
    transform,
    transformObject,
  });
}
