/* global document, URLSearchParams */
import { notify } from './actions.js';
import { bulkBar } from './bulk.js';
import { getJobStates, getJson } from './api.js';
import { age, badge, fill, h, table } from './dom.js';
import { throttle } from './live.js';
import { filterForm, pager, PAGE } from './view-batches.js';

// Jobs by state (in priority order) or newest first, optionally of one batch.

/** Bulk buttons over the jobs the filter selects; none without a filter (never "every job"). */
function bulkOf(query, refresh) {
  const filter = {};
  for (const key of ['batch', 'state', 'collection']) if (query.get(key)) filter[key] = query.get(key);
  const parts = Object.entries(filter).map(([key, value]) => `${key} ${value}`);
  if (parts.length === 0)
    return h(
      'p',
      { class: 'note', id: 'bulk' },
      'Filter by state or batch to act on every matching job at once.',
    );
  return bulkBar(filter, `with ${parts.join(' and ')}`, refresh);
}

export async function renderJobs(main, { query }) {
  const states = await getJobStates();
  const results = h('div', { id: 'jobs-results' });
  const refresh = async () => {
    const params = new URLSearchParams(query);
    params.set('limit', String(PAGE));
    const list = await getJson(`/jobs?${params}`);
    fill(
      results,
      table({
        id: 'jobs',
        columns: [
          'Job',
          'Batch',
          'State',
          'Priority',
          'Retries',
          'Last success',
          'Message',
          'Age',
          'Locked',
        ].map((label, i) => ({ label, rowHeader: i === 0, num: i === 3 || i === 4 })),
        rows: list.items.map((j) => ({
          attrs: { 'data-jid': j.jid },
          cells: [
            h('a', { href: `#/jobs/${j.jid}` }, j.jid),
            h('a', { href: `#/batches/${j.bid}` }, j.bid),
            badge(j.status),
            String(j.priority),
            String(j.retryCount),
            j.lastSuccessfulStatus ?? '',
            j.message ?? '',
            age(j.lastModified),
            j.locked ? 'locked' : '',
          ],
        })),
        empty: 'No job matches.',
      }),
      pager('#/jobs', query, list.total),
      bulkOf(query, refresh),
    );
  };
  main.replaceChildren(
    h('h1', {}, 'Jobs'),
    filterForm(
      '#/jobs',
      [
        { name: 'state', label: 'State', options: states },
        { name: 'batch', label: 'Batch (bid…)' },
      ],
      query,
    ),
    results,
  );
  document.title = 'Jobs · mrtq';
  await refresh();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    1000,
  );
  return { refresh: later, onTransition: (t) => t.kind === 'job' && later(), dispose: later.cancel };
}
