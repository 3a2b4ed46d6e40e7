import type { RouteSchema, RouteSpec } from './deps.js';
import { EVENT_STREAM } from './events-route.js';
import { errorBody, type JsonSchema } from './schemas.js';

/** An OpenAPI 3.1 document (only what this module writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, JsonSchema> };
  paths: Record<string, Record<string, unknown>>;
}

/** `/jobs/:jid/hold` → `/jobs/{jid}/hold`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(schema: RouteSchema): unknown[] {
  const list = (where: 'path' | 'query', part: JsonSchema | undefined): unknown[] => {
    const properties = (part?.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((part?.required ?? []) as string[]);
    return Object.entries(properties).map(([name, property]) => ({
      name,
      in: where,
      required: where === 'path' || required.has(name),
      schema: property,
    }));
  };
  return [...list('path', schema.params), ...list('query', schema.querystring)];
}

function responses(spec: RouteSpec): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  const declared = Object.entries(spec.schema.response ?? {});
  if (declared.length === 0) {
    const type = spec.produces ?? 'application/json';
    answers['200'] = { description: 'OK', content: { [type.split(';')[0] as string]: {} } };
  }
  for (const [status, schema] of declared) {
    answers[status] = {
      description: status === '201' ? 'Created' : 'OK',
      content: { 'application/json': { schema } },
    };
  }
  const error = {
    description: 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  answers['4XX'] = error;
  answers['5XX'] = error;
  return answers;
}

/** `POST /jobs/:jid/hold` → `postJobsJidHold`. */
function operationId(spec: RouteSpec): string {
  const words = spec.url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return spec.method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function operation(spec: RouteSpec): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: operationId(spec),
    summary: spec.summary,
    tags: [spec.tag],
    parameters: parameters(spec.schema),
    responses: responses(spec),
  };
  if (spec.schema.body) {
    // A body with required fields is required; the operator actions' body is optional.
    const required = Array.isArray(spec.schema.body.required) && spec.schema.body.required.length > 0;
    const type = spec.consumes ?? 'application/json';
    op.requestBody = {
      required: required || type !== 'application/json',
      content: { [type]: { schema: spec.schema.body } },
    };
  }
  if (spec.mutating) op.security = [{ bearer: [] }];
  else if (spec.produces === EVENT_STREAM) op.security = [{}, { bearer: [] }, { queryToken: [] }];
  return op;
}

/**
 * The OpenAPI document of `routes`, built from the very schema objects the routes validate
 * with, so the document cannot drift from what the server does.
 */
export function buildOpenApi(routes: readonly RouteSpec[], version: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const spec of routes) {
    const path = openApiPath(spec.url);
    paths[path] = { ...paths[path], [spec.method.toLowerCase()]: operation(spec) };
  }
  return {
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
      schemas: { Error: errorBody },
    },
    paths,
  };
}
