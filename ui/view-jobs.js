/* global document */
import { notify } from './actions.js';
import { bulkBar } from './bulk.js';
import { getJobStates, getJson } from './api.js';
import { age, badge, fill, h, table } from './dom.js';
import { throttle } from './live.js';
import { cursorPager, listState, markSorted, sortButton } from './list-controls.js';
import { filterForm, PAGE } from './view-batches.js';

// Jobs by state (in priority order) or newest first, or sorted by a column; optionally of one
// batch; a page at a time (by cursor).

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
  const list = listState({ sort: query.get('sort'), order: query.get('order') }, () => void refreshNow());
  const refresh = async () => {
    const params = list.params();
    for (const name of ['state', 'batch', 'collection'])
      if (query.get(name)) params.set(name, query.get(name));
    params.set('limit', String(PAGE));
    const page = await getJson(`/jobs?${params}`);
    const sortable = { Job: 'created', State: 'state', Priority: 'priority', Age: 'updated' };
    const labels = ['Job', 'Batch', 'State', 'Priority', 'Retries', 'Last success', 'Message', 'Age'];
    const columns = [...labels, 'Locked'].map((label, i) => ({
      label: sortable[label] ? sortButton(list, label, sortable[label]) : label,
      rowHeader: i === 0,
      num: label === 'Priority' || label === 'Retries',
    }));
    fill(
      results,
      markSorted(
        table({
          id: 'jobs',
          columns,
          rows: page.items.map((j) => ({
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
        list,
      ),
      cursorPager(list, page, { id: 'jobs-pager', size: PAGE }),
      bulkOf(query, refresh),
    );
  };
  const refreshNow = () => refresh().catch((err) => notify('error', `Could not load: ${err.message}`));
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
