import { jobIndexOf } from '../../views/job-index/job-index.js';
import { DEFAULT_SEARCH_LIMIT, SEARCH_MAX_AGE_MS, searchQueue } from '../../views/search/search.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { searchQuery, searchResult } from '../schemas.js';

/**
 * `GET /search?q=`: a batch or job by jid, bid, batch uuid, ARK, local id or title prefix. The
 * ARK, local id and title come from the in-memory job index this API keeps for rollups and sorting
 * too (built by the first request that needs it, refreshed at a search when older than 5 s;
 * docs/http.md says what that costs).
 */
export function searchRoutes(ctx: ApiContext): RouteSpec[] {
  const index = jobIndexOf(ctx.queue);
  return [
    {
      method: 'GET',
      url: '/search',
      tag: 'dashboard',
      summary:
        'Find batches and jobs by jid, bid, batch uuid, ARK, local id or title prefix; exact ids first, at most limit (default 20)',
      schema: { querystring: searchQuery, response: { 200: searchResult } },
      handler: async (request) => {
        const { q, limit } = request.query as { q: string; limit?: string };
        const cap = limit === undefined ? DEFAULT_SEARCH_LIMIT : Number(limit);
        return searchQueue(ctx.queue, index, q, cap, SEARCH_MAX_AGE_MS);
      },
    },
  ];
}
