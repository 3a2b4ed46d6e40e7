import { SearchIndex } from '../../views/search/item-index.js';
import { DEFAULT_SEARCH_LIMIT, searchQueue } from '../../views/search/search.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { searchQuery, searchResult } from '../schemas.js';

/**
 * `GET /search?q=`: a batch or job by jid, bid, batch uuid, ARK, local id or title prefix. The
 * ARK, local id and title come from an in-memory index this API keeps (built by the first such
 * search, refreshed at a search when older than 5 s; docs/http.md says what that costs).
 */
export function searchRoutes(ctx: ApiContext): RouteSpec[] {
  const index = new SearchIndex(ctx.queue);
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
        return searchQueue(ctx.queue, index, q, limit === undefined ? DEFAULT_SEARCH_LIMIT : Number(limit));
      },
    },
  ];
}
