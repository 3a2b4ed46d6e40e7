/* global document, location, URLSearchParams */
import { notify } from './actions.js';
import { getBatchStatuses, getJson } from './api.js';
import { age, badge, fill, h, table } from './dom.js';
import { cursorPager, listState, markSorted, sortButton } from './list-controls.js';
import { throttle } from './live.js';
import { progressBar } from './progress-bar.js';

// Batches, newest first or sorted by a column, filtered by status, submitter and profile, a page at
// a time (by cursor), each with its progress bar.

const PAGE = 25;

/** Previous / next links over `total` items, keeping the other query parameters. */
export function pager(base, query, total) {
  const offset = Number(query.get('offset') ?? 0);
  const link = (to, label, rel) => {
    const next = new URLSearchParams(query);
    next.set('offset', String(to));
    return h('a', { href: `${base}?${next}`, rel }, label);
  };
  const shown = total === 0 ? 'none' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    offset > 0 ? link(Math.max(0, offset - PAGE), 'Previous page', 'prev') : null,
    h('span', {}, `Showing ${shown}`),
    offset + PAGE < total ? link(offset + PAGE, 'Next page', 'next') : null,
  );
}

/** A filter form that rewrites the fragment's query (the view re-renders from it). */
export function filterForm(base, fields, query) {
  const controls = fields.map(({ name, label, options }) => {
    const id = `filter-${name}`;
    const control = options
      ? h(
          'select',
          { id, name },
          h('option', { value: '' }, 'any'),
          options.map((o) => h('option', { value: o, selected: query.get(name) === o }, o)),
        )
      : h('input', { id, name, value: query.get(name) ?? '' });
    return h('label', { for: id }, label, control);
  });
  const submit = (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const { name } of fields) {
      const value = event.target.elements[name].value.trim();
      if (value) next.set(name, value);
    }
    location.hash = `${base}?${next}`;
  };
  return h(
    'form',
    { class: 'filters', role: 'search', on: { submit } },
    controls,
    h('button', { type: 'submit', class: 'primary' }, 'Apply filters'),
  );
}

export async function renderBatches(main, { query }) {
  const statuses = await getBatchStatuses();
  const results = h('div', { id: 'batches-results' });
  const list = listState({ sort: query.get('sort'), order: query.get('order') }, () => void refreshNow());
  const refresh = async () => {
    const params = list.params();
    for (const name of ['status', 'submitter', 'profile'])
      if (query.get(name)) params.set(name, query.get(name));
    params.set('limit', String(PAGE));
    const page = await getJson(`/batches?${params}`);
    const sortable = { Batch: 'created', Status: 'state', Changed: 'updated' };
    const labels = ['Batch', 'Status', 'Profile', 'Submitter', 'Submitted', 'Jobs', 'Progress'];
    const columns = [...labels, 'Completed', 'Failed', 'Changed', 'Message'].map((label, i) => ({
      label: sortable[label] ? sortButton(list, label, sortable[label]) : label,
      rowHeader: i === 0,
      num: label === 'Jobs' || label === 'Completed' || label === 'Failed',
    }));
    fill(
      results,
      markSorted(
        table({
          id: 'batches',
          columns,
          rows: page.items.map((b) => ({
            attrs: { 'data-bid': b.bid },
            cells: [
              h('a', { href: `#/batches/${b.bid}` }, b.bid),
              badge(b.status),
              b.profile,
              b.submitter,
              b.submissionDate ? `${age(b.submissionDate)} ago` : '',
              String(b.jobCount ?? '?'),
              progressBar(b.progress, { compact: true }),
              String(b.counts.completed),
              String(b.counts.failed),
              age(b.lastModified),
              b.message ?? '',
            ],
          })),
          empty: 'No batch matches.',
        }),
        list,
      ),
      cursorPager(list, page, { id: 'batches-pager', size: PAGE }),
    );
  };
  const refreshNow = () => refresh().catch((err) => notify('error', `Could not load: ${err.message}`));
  main.replaceChildren(
    h('h1', {}, 'Batches'),
    filterForm(
      '#/batches',
      [
        { name: 'status', label: 'Status', options: statuses },
        { name: 'submitter', label: 'Submitter' },
        { name: 'profile', label: 'Profile' },
      ],
      query,
    ),
    results,
  );
  document.title = 'Batches · mrtq';
  await refresh();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    1000,
  );
  return {
    refresh: later,
    // A job's move changes its batch's progress bar.
    onTransition: () => later(),
    dispose: later.cancel,
  };
}

export { PAGE };
