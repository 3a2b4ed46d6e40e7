import { runBulk } from '../../admin/bulk/run.js';
import { BULK_ACTIONS, type BulkAction, type BulkFilter } from '../../admin/bulk/filter.js';
import { auditBulkItem } from '../audit.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { bulkBody, bulkParams, bulkReport, type BulkBody } from '../schemas.js';

/** The filter keys the body carries, without the ones left out. */
function filterOf(body: BulkBody): BulkFilter {
  const filter: BulkFilter = {};
  if (body.batch !== undefined) filter.batch = body.batch;
  if (body.collection !== undefined) filter.collection = body.collection;
  if (body.profile !== undefined) filter.profile = body.profile;
  if (body.state !== undefined) filter.state = body.state;
  return filter;
}

/**
 * `POST /jobs/bulk/:action`: one operator action on every job matching a filter, each job
 * checked by the lifecycle through the per-item function (see runBulk). A dry run unless the
 * body says `dryRun: false`, so a client must ask for the real thing; the token is required for
 * both, as a dry run tells what the queue holds in an operator's terms.
 */
export function bulkRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    {
      method: 'POST',
      url: '/jobs/bulk/:action',
      tag: 'jobs',
      summary: `${BULK_ACTIONS.join(', ')} every job matching a filter (batch, collection, profile, state): a dry run unless dryRun is false; per-item outcomes and counts`,
      mutating: true,
      role: 'admin',
      reach: 'bulk',
      action: 'bulk action',
      schema: {
        params: bulkParams(BULK_ACTIONS),
        body: bulkBody(ctx.queue.lifecycle),
        response: { 200: bulkReport },
      },
      handler: async (request) => {
        const { action } = request.params as { action: BulkAction };
        const body = (request.body ?? {}) as BulkBody;
        const dryRun = body.dryRun !== false;
        const filter = filterOf(body);
        if (!dryRun) request.log.info({ action: `bulk ${action}`, filter }, 'operator action');
        const onItem = dryRun ? undefined : auditBulkItem(ctx, request, `bulk ${action}`, body.reason);
        return runBulk(ctx.queue, action, filter, { dryRun, ...(onItem ? { onItem } : {}) });
      },
    },
  ];
}
