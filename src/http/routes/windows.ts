import { formatDuration } from '../../config/duration.js';
import { QUEUE_NAMES } from '../../queue/tree/paths.js';
import { windowState } from '../../queue/windows/schedule.js';
import {
  deleteWindow,
  getWindow,
  inputNode,
  listWindows,
  nodeProblems,
  putWindow,
  skipWindow,
  type StoredWindow,
  type WindowInput,
} from '../../queue/windows/store.js';
import { WINDOW_NAME_MAX, WINDOW_NAME_PATTERN } from '../../queue/windows/window.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { HttpProblem } from '../errors.js';
import type { JsonSchema } from '../schemas.js';

/**
 * Maintenance windows (docs/engine.md, "Maintenance windows"): list them with their next
 * occurrence, set, delete, skip. The schemas live here, beside the only routes that use them.
 */

const instant = { type: 'string', description: 'ISO 8601 instant' };
const occurrence = {
  type: 'object',
  required: ['start', 'end'],
  properties: { start: instant, end: instant },
};

const target: JsonSchema = {
  type: 'object',
  description: 'what the window holds: a queue (`/locks/queue/<queue>`) or a collection',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['queue'],
      properties: { queue: { type: 'string', enum: QUEUE_NAMES } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['collection'],
      properties: {
        collection: { type: 'string', minLength: 1, maxLength: 100, pattern: WINDOW_NAME_PATTERN },
      },
    },
  ],
};

/** `PUT /windows/:name`. */
export const windowBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['cron', 'duration', 'timezone', 'target'],
  properties: {
    cron: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description:
        'when it starts: 5 fields (minute hour day month weekday) or 6 (second first), read in `timezone`',
    },
    duration: {
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', minLength: 1, maxLength: 20 },
      ],
      description:
        'how long each occurrence lasts: ms, or a duration such as 2h, 90m; at most the time between two starts',
    },
    timezone: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'IANA time zone, e.g. America/Los_Angeles',
    },
    target,
    reason: { type: 'string', minLength: 1, maxLength: 500 },
    skip: { ...instant, description: 'the start of one occurrence that is skipped' },
  },
};

const windowView: JsonSchema = {
  type: 'object',
  required: ['name', 'version', 'active'],
  properties: {
    ...{ name: { type: 'string' }, version: { type: 'integer' }, cron: { type: 'string' } },
    ...{ duration: { type: 'string' }, durationMs: { type: 'integer' }, timezone: { type: 'string' } },
    ...{ target: { type: 'object', additionalProperties: true }, reason: { type: 'string' } },
    skip: instant,
    applied: { ...instant, description: 'the start of the last occurrence an engine applied' },
    active: { type: 'boolean', description: 'an occurrence holds its target now' },
    current: {
      ...occurrence,
      description: 'the occurrence in force now (skipped or not)',
      properties: { ...occurrence.properties, skipped: { type: 'boolean' } },
    },
    next: { ...occurrence, description: 'the next occurrence that is not skipped' },
    problem: { type: 'string', description: 'the node cannot be read: why (the engines ignore it)' },
  },
};

const nameParams: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: WINDOW_NAME_MAX, pattern: WINDOW_NAME_PATTERN },
  },
};
const versionQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    version: {
      type: 'string',
      pattern: '^(?:-1|[0-9]{1,9})$',
      description:
        'only over this version of the node (as listed; -1: only a new window): 409 when it moved on',
    },
  },
};

/** A window as the API shows it: its fields, and its state now. */
export function viewOf(stored: StoredWindow, now: Date) {
  const { name, version, window, problem } = stored;
  if (!window) return { name, version, active: false, problem };
  const state = windowState(window, now);
  const show = (o: { start: Date; end: Date }) => ({
    start: o.start.toISOString(),
    end: o.end.toISOString(),
  });
  const { durationMs, ...fields } = window;
  return {
    name,
    version,
    ...fields,
    duration: formatDuration(durationMs),
    durationMs,
    active: state.active,
    ...(state.current ? { current: { ...show(state.current), skipped: state.current.skipped } } : {}),
    ...(state.next ? { next: show(state.next) } : {}),
  };
}

const nameOf = (request: { params: unknown }): string => (request.params as { name: string }).name;
const versionOf = (request: { query: unknown }): number | undefined => {
  const { version } = (request.query ?? {}) as { version?: string };
  return version === undefined ? undefined : Number(version);
};

/** 400 naming the first field that is wrong (`body.cron`), before anything is written. */
function checkBody(body: WindowInput, now: Date): void {
  const [first] = nodeProblems(inputNode(body), now);
  if (first)
    throw new HttpProblem(
      400,
      'VALIDATION',
      `body.${first.field}: ${first.message}`,
      {},
      `body.${first.field}`,
    );
}

export function windowRoutes(ctx: ApiContext): RouteSpec[] {
  const now = (): Date => ctx.queue.now();
  return [
    {
      method: 'GET',
      url: '/windows',
      tag: 'operators',
      summary: 'Maintenance windows, each with whether it holds its target now and its next occurrence',
      schema: {
        response: {
          200: {
            type: 'object',
            required: ['items'],
            properties: { items: { type: 'array', items: windowView } },
          },
        },
      },
      handler: async () => ({ items: (await listWindows(ctx.queue)).map((w) => viewOf(w, now())) }),
    },
    {
      method: 'GET',
      url: '/windows/:name',
      tag: 'operators',
      summary: 'One maintenance window',
      schema: { params: nameParams, response: { 200: windowView } },
      handler: async (request) => viewOf(await getWindow(ctx.queue, nameOf(request)), now()),
    },
    {
      method: 'PUT',
      url: '/windows/:name',
      tag: 'operators',
      summary: 'Create or replace a maintenance window (201 when created); every engine applies it',
      mutating: true,
      role: 'admin',
      action: 'set window',
      schema: {
        params: nameParams,
        querystring: versionQuery,
        body: windowBody,
        response: { 200: windowView, 201: windowView },
      },
      handler: async (request, reply) => {
        const body = request.body as WindowInput;
        checkBody(body, now());
        const version = versionOf(request);
        const written = await putWindow(
          ctx.queue,
          nameOf(request),
          body,
          version === undefined ? {} : { version },
        );
        request.log.info(
          { action: 'set window', window: written.name, created: written.created },
          'operator action',
        );
        void reply.code(written.created ? 201 : 200);
        return viewOf(written, now());
      },
    },
    {
      method: 'DELETE',
      url: '/windows/:name',
      tag: 'operators',
      summary: 'Delete a maintenance window; a hold it placed is lifted by the engines',
      mutating: true,
      role: 'admin',
      action: 'delete window',
      schema: {
        params: nameParams,
        querystring: versionQuery,
        response: {
          200: { type: 'object', properties: { name: { type: 'string' }, deleted: { type: 'boolean' } } },
        },
      },
      handler: async (request) => {
        const version = versionOf(request);
        await deleteWindow(ctx.queue, nameOf(request), version === undefined ? {} : { version });
        request.log.info({ action: 'delete window', window: nameOf(request) }, 'operator action');
        return { name: nameOf(request), deleted: true };
      },
    },
    {
      method: 'POST',
      url: '/windows/:name/skip',
      tag: 'operators',
      summary: 'Skip the occurrence in force now (its hold is lifted), else the next one',
      mutating: true,
      role: 'admin',
      action: 'skip window',
      schema: {
        params: nameParams,
        response: {
          200: { ...windowView, properties: { ...(windowView.properties as object), skipped: occurrence } },
        },
      },
      handler: async (request) => {
        const skipped = await skipWindow(ctx.queue, nameOf(request), now());
        request.log.info(
          { action: 'skip window', window: skipped.name, skipped: skipped.skipped.start },
          'operator action',
        );
        const at = { start: skipped.skipped.start.toISOString(), end: skipped.skipped.end.toISOString() };
        return { ...viewOf(skipped, now()), skipped: at };
      },
    },
  ];
}
