/* global document, location, URLSearchParams */
import { notify } from './actions.js';
import { getBatchStatuses, getJson } from './api.js';
import { age, badge, fill, h, table } from './dom.js';
import { throttle } from './live.js';

// Batches, newest first, filtered by status, submitter and profile, a page at a time.

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
  const refresh = async () => {
    const params = new URLSearchParams(query);
    params.set('limit', String(PAGE));
    const list = await getJson(`/batches?${params}`);
    fill(
      results,
      table({
        id: 'batches',
        columns: [
          'Batch',
          'Status',
          'Profile',
          'Submitter',
          'Submitted',
          'Jobs',
          'Completed',
          'Failed',
          'Changed',
          'Message',
        ].map((label, i) => ({ label, rowHeader: i === 0, num: i >= 5 && i <= 7 })),
        rows: list.items.map((b) => ({
          attrs: { 'data-bid': b.bid },
          cells: [
            h('a', { href: `#/batches/${b.bid}` }, b.bid),
            badge(b.status),
            b.profile,
            b.submitter,
            b.submissionDate ? `${age(b.submissionDate)} ago` : '',
            String(b.jobCount ?? '?'),
            String(b.counts.completed),
            String(b.counts.failed),
            age(b.lastModified),
            b.message ?? '',
          ],
        })),
        empty: 'No batch matches.',
      }),
      pager('#/batches', query, list.total),
    );
  };
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
  return { refresh: later, onTransition: (t) => t.kind === 'batch' && later(), dispose: later.cancel };
}

export { PAGE };
