import type { Role } from '../auth/actor.js';
import { collectionRefusal } from '../auth/permission.js';
import { roleGuard, type Guard } from './auth.js';
import type { ApiContext, RouteSpec } from './deps.js';
import { HttpProblem } from './errors.js';
import { EVENT_STREAM } from './events/route.js';
import { reachOf } from './reach.js';

/** What the guards of a route read: the credentials, and the queue and profiles to find collections. */
export type GuardContext = Pick<ApiContext, 'credentials' | 'queue' | 'profiles'>;

/**
 * The role a route needs: its own; a mutating route that declares none needs `admin` (so a new
 * route that changes the queue is never open by omission); a stream needs `read` (its clients
 * hold memory and a connection, see events/route.ts); other reads none.
 */
export function neededRole(spec: RouteSpec): Role | undefined {
  if (spec.role !== undefined) return spec.role;
  if (spec.mutating) return 'admin';
  return spec.produces === EVENT_STREAM ? 'read' : undefined;
}

/** How a route is named in a refusal: its action (`hold job`), else its method and path. */
export function actionName(spec: RouteSpec): string {
  return spec.action ?? `${spec.method} ${spec.url}`;
}

/**
 * The one place that decides how a route is guarded, from its RouteSpec: `onRequest`, the
 * credential and its role (roleGuard, before the body is read); `preHandler`, for what needs more
 * than `read`, the collections a credential is limited to, checked against what the validated
 * request acts on (reach.ts).
 */
export function guardsOf(spec: RouteSpec, ctx: GuardContext): { onRequest: Guard; preHandler?: Guard } {
  const needed = neededRole(spec);
  const action = actionName(spec);
  const onRequest = roleGuard(ctx.credentials, { needed, action, stream: spec.produces === EVENT_STREAM });
  if (needed === undefined || needed === 'read') return { onRequest };
  const preHandler: Guard = async (request) => {
    if (request.actor?.collections === undefined) return;
    const refused = collectionRefusal(request.actor, action, await reachOf(ctx, spec.reach, request));
    if (refused) throw new HttpProblem(403, 'FORBIDDEN', refused);
  };
  return { onRequest, preHandler };
}
