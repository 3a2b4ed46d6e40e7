import type { FastifySchemaValidationError } from 'fastify';
import { isQueueError, type QueueErrorCode } from '../queue/tree/errors.js';
import { IntakeError } from '../steps/intake-errors.js';
import { ZkError } from '../zk/index.js';

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: string;
  message: string;
  /** The request field a validation error is about (`body.profile`, `querystring.limit`…). */
  field?: string;
}

/** An answer the API decides on itself (auth, readiness…): status, code, message, headers. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** The request field the problem is about, for validation-like answers. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}

/** What an error becomes on the wire. `internal` marks answers that hide the error (logged instead). */
export interface HttpError {
  status: number;
  body: ErrorBody;
  headers?: Readonly<Record<string, string>>;
  internal?: boolean;
}

const QUEUE_STATUS: Readonly<Record<QueueErrorCode, number>> = {
  INVALID_TRANSITION: 409,
  LOCK_HELD: 409,
  CONFLICT: 409,
  LOCK_LOST: 409,
  NOT_FOUND: 404,
  BAD_REQUEST: 400,
  ITEM_INVALID: 422,
};

interface ValidationFailure {
  validation: FastifySchemaValidationError[];
  validationContext?: string;
}

function isValidationFailure(err: unknown): err is ValidationFailure {
  return typeof err === 'object' && err !== null && Array.isArray((err as ValidationFailure).validation);
}

/** `body.profile: must match pattern "…"`: the failing field first, then ajv's reason. */
export function describeValidation(failure: ValidationFailure): { field: string; message: string } {
  const part = failure.validationContext ?? 'request';
  const first = failure.validation[0];
  if (!first) return { field: part, message: `${part}: invalid` };
  const params: Record<string, unknown> = first.params;
  const named = params.missingProperty ?? params.additionalProperty;
  const path = first.instancePath.split('/').filter(Boolean);
  if (typeof named === 'string') path.push(named);
  const field = [part, ...path].join('.');
  if (params.additionalProperty !== undefined) return { field, message: `${field}: unknown field` };
  if (params.missingProperty !== undefined) {
    const also = typeof params.property === 'string' ? ` with ${part}.${params.property}` : '';
    return { field, message: `${field}: required${also}` };
  }
  const allowed = Array.isArray(params.allowedValues) ? ` (${params.allowedValues.join(', ')})` : '';
  return { field, message: `${field}: ${first.message ?? 'is invalid'}${allowed}` };
}

/** Fastify's own client errors (unparsable JSON, wrong content type, body too large). */
function clientError(err: unknown): HttpError | undefined {
  const { statusCode, code, message } = (err ?? {}) as {
    statusCode?: unknown;
    code?: unknown;
    message?: unknown;
  };
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return undefined;
  const error = typeof code === 'string' ? code : 'BAD_REQUEST';
  return { status: statusCode, body: { error, message: typeof message === 'string' ? message : error } };
}

/**
 * The one place errors become HTTP answers. Queue errors by code (INVALID_TRANSITION, LOCK_HELD,
 * CONFLICT, LOCK_LOST → 409; NOT_FOUND → 404; BAD_REQUEST → 400; ITEM_INVALID → 422), schema
 * validation → 400 naming the field, an unknown profile → 400, ZooKeeper unavailable → 503,
 * anything else → 500 without details. `action` ("hold job") prefixes refused transitions.
 */
export function toHttpError(err: unknown, action?: string): HttpError {
  if (err instanceof HttpProblem) {
    const body: ErrorBody = { error: err.code, message: err.message };
    if (err.field !== undefined) body.field = err.field;
    return { status: err.status, body, headers: err.headers };
  }
  if (isQueueError(err)) {
    const prefix = err.code === 'INVALID_TRANSITION' && action ? `cannot ${action}: ` : '';
    return { status: QUEUE_STATUS[err.code], body: { error: err.code, message: prefix + err.message } };
  }
  if (isValidationFailure(err)) {
    const { field, message } = describeValidation(err);
    return { status: 400, body: { error: 'VALIDATION', message, field } };
  }
  if (err instanceof IntakeError && err.code === 'PROFILE_UNKNOWN')
    return { status: 400, body: { error: err.code, message: err.message, field: 'body.profile' } };
  if (err instanceof ZkError && err.retryable) {
    const message = `ZooKeeper did not answer (${err.code}); try again`;
    return { status: 503, body: { error: 'UNAVAILABLE', message }, headers: { 'retry-after': '1' } };
  }
  const client = clientError(err);
  if (client) return client;
  return {
    status: 500,
    body: { error: 'INTERNAL', message: 'internal error; see the service log' },
    internal: true,
  };
}
