import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { needsReason, type AuditOutcome, type AuditRecord } from '../audit/entry.js';
import { auditedAction } from '../audit/audited-action.js';
import { bulkAuditRecord } from '../admin/bulk/audit.js';
import type { BulkItem } from '../admin/bulk/outcome.js';
import { isQueueError } from '../queue/tree/errors.js';
import type { ApiContext, RouteSpec } from './deps.js';
import { HttpProblem } from './errors.js';

/** Who made a request: the credential the guards found (see src/auth), or nobody known. */
export function actorOf(request: FastifyRequest): AuditRecord['actor'] {
  const actor = (request as FastifyRequest & { actor?: Actor }).actor;
  const dashboard = request.headers['x-mrtq-client'] === 'dashboard';
  if (!actor) return { name: 'anonymous', via: dashboard ? 'dashboard' : 'api' };
  return { name: actor.name, ...(actor.role ? { role: actor.role } : {}), via: actor.via };
}

/**
 * A request to change the queue refused before its handler ran (no credential, a role or
 * collection it lacks: the guards' 401 and 403) is audited too, with the credential it came with.
 */
export function auditRefusals(app: FastifyInstance, ctx: ApiContext): void {
  app.addHook('onResponse', (request, reply, done) => {
    const config = request.routeOptions.config;
    const status = reply.statusCode;
    if (ctx.audit && config?.mutating && (status === 401 || status === 403) && !auditedRequest(request)) {
      const params = (request.params ?? {}) as Record<string, string>;
      const item = itemOfParams(request.routeOptions.url ?? '', params);
      ctx.audit.record({
        actor: actorOf(request),
        action: config.action ?? `${request.method} ${request.routeOptions.url ?? request.url}`,
        ...(item ? { item } : {}),
        outcome: 'refused',
        error: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
      });
    }
    done();
  });
}

const auditedRequest = (request: FastifyRequest): boolean =>
  (request as FastifyRequest & { auditRequest?: string }).auditRequest !== undefined;

/** The item a route acts on, from its parameters: `jid…`, `bid…`, `queue:ingest`, `collection:demo`… */
function itemOf(spec: RouteSpec, params: Record<string, string>): string | undefined {
  return itemOfParams(spec.url, params);
}

function itemOfParams(url: string, params: Record<string, string>): string | undefined {
  if (params.jid) return params.jid;
  if (params.bid) return params.bid;
  if (params.qid && params.queue) return `access:${params.queue}/${params.qid}`;
  if (params.queue) return `queue:${params.queue}`;
  if (params.mnemonic) return `collection:${params.mnemonic}`;
  if (params.name) return `window:${params.name}`;
  if (params.key) return `share:${params.key}`;
  if (url.startsWith('/policies/')) return `policy:${url.slice('/policies/'.length)}`;
  return undefined;
}

/** The item a submission made, from its answer. */
function createdOf(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const { batchId, bid, jobId, jid } = result as Record<string, unknown>;
  return [batchId, bid, jobId, jid].find((value): value is string => typeof value === 'string');
}

function outcomeOf(err: unknown): { outcome: AuditOutcome; error: string } {
  if (isQueueError(err)) return { outcome: 'refused', error: `${err.code}: ${err.message}` };
  if (err instanceof HttpProblem && err.status < 500)
    return { outcome: 'refused', error: `${err.code}: ${err.message}` };
  const status = (err as { statusCode?: number }).statusCode;
  const message = err instanceof Error ? err.message : String(err);
  return { outcome: status !== undefined && status < 500 ? 'refused' : 'error', error: message };
}

/** A route's action as the audit log names it: a bulk action by what it does. */
function actionOf(spec: RouteSpec, params: Record<string, string>): string {
  if (spec.url === '/jobs/bulk/:action' && params.action) return `bulk ${params.action}`;
  return spec.action ?? `${spec.method} ${spec.url}`;
}

/**
 * Every route that changes the queue, audited (issue 35): one line per request in the audit log
 * with who (request.actor), what, which item, why (the body's `reason`, required for destructive
 * actions before anything is done), the item's state before and after, and the outcome (a
 * refusal too). A bulk action also writes a line per job it changed. A dry run changes nothing
 * and writes nothing.
 */
export function withAudit(ctx: ApiContext, routes: readonly RouteSpec[]): RouteSpec[] {
  return routes.map((spec) => (spec.mutating ? audited(ctx, spec) : spec));
}

function audited(ctx: ApiContext, spec: RouteSpec): RouteSpec {
  return {
    ...spec,
    handler: async (request, reply) => {
      const params = (request.params ?? {}) as Record<string, string>;
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<
        string,
        unknown
      >;
      const action = actionOf(spec, params);
      // A route that can dry-run (bulk actions) does so unless told `dryRun: false`: nothing to audit.
      const properties = spec.schema.body?.properties as Record<string, unknown> | undefined;
      const canDryRun = properties?.dryRun !== undefined;
      if (canDryRun && body.dryRun !== false) return spec.handler(request, reply);
      const reason = typeof body.reason === 'string' ? body.reason : undefined;
      if (needsReason(action) && reason === undefined)
        throw new HttpProblem(
          400,
          'REASON_REQUIRED',
          `${action} needs a reason: send {"reason": "…"}`,
          {},
          'reason',
        );
      const audit = ctx.audit;
      if (!audit) return spec.handler(request, reply);
      const request_ = randomUUID();
      (request as FastifyRequest & { auditRequest?: string }).auditRequest = request_;
      const item = itemOf(spec, params);
      return auditedAction(
        {
          queue: ctx.queue,
          line: {
            actor: actorOf(request),
            action,
            ...(reason !== undefined ? { reason } : {}),
            request: request_,
          },
          record: (line) => audit.record(line),
          ...(item !== undefined ? { item } : {}),
          created: createdOf,
          outcomeOf,
        },
        () => spec.handler(request, reply),
      );
    },
  };
}

/** The line of one job a bulk action touched, under its request's line (see withAudit). */
export function auditBulkItem(
  ctx: ApiContext,
  request: FastifyRequest,
  action: string,
  reason: string | undefined,
): (item: BulkItem) => void {
  const requestId = (request as FastifyRequest & { auditRequest?: string }).auditRequest;
  const base = {
    actor: actorOf(request),
    action,
    ...(reason !== undefined ? { reason } : {}),
    ...(requestId ? { request: requestId } : {}),
  };
  return (item) => ctx.audit?.record(bulkAuditRecord(item, base));
}
