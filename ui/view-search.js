/* global document, location, URLSearchParams */
import { getJson } from './api.js';
import { badge, h, table } from './dom.js';

// The search box in the header and its results page (#/search?q=…): a batch or job by jid,
// bid, batch uuid, ARK, local id or the start of its title (GET /search).

const MATCHED = {
  jid: 'job id',
  bid: 'batch id',
  uuid: 'batch uuid',
  ark: 'ARK',
  localId: 'local id',
  title: 'title',
};

/** Wires the header's search form: it opens the results page for what was typed. */
export function searchBox() {
  const input = document.getElementById('search-input');
  document.getElementById('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const q = input.value.trim();
    if (q !== '') location.hash = `#/search?${new URLSearchParams({ q })}`;
  });
}

function link(hit) {
  return h('a', { href: `#/${hit.kind === 'job' ? 'jobs' : 'batches'}/${hit.id}` }, hit.id);
}

export async function renderSearch(main, { query }) {
  const q = query.get('q') ?? '';
  document.getElementById('search-input').value = q;
  document.title = `Search ${q} · mrtq`;
  if (q.trim() === '') {
    main.replaceChildren(
      h('h1', {}, 'Search'),
      h('p', { class: 'muted' }, 'Type an id, ARK, local id or title.'),
    );
    return {};
  }
  const result = await getJson(`/search?${new URLSearchParams({ q, limit: '50' })}`);
  const rows = result.items.map((hit) => ({
    attrs: { 'data-id': hit.id, 'data-match': hit.match },
    cells: [
      link(hit),
      hit.kind,
      MATCHED[hit.match] ?? hit.match,
      hit.match === 'title' ? '' : hit.value,
      hit.title ?? '',
      hit.status ? badge(hit.status) : '',
      hit.bid && hit.kind === 'job' ? h('a', { href: `#/batches/${hit.bid}` }, hit.bid) : '',
    ],
  }));
  const more =
    result.total > result.items.length
      ? `The best ${result.items.length} of ${result.total} matches; a longer key narrows them.`
      : `${result.total === 1 ? '1 match' : `${result.total} matches`}.`;
  const index = result.index
    ? ` ARK, local id and title come from an index read ${result.index.refreshedAt ?? 'just now'} (refreshed at a search when older than a few seconds).`
    : '';
  main.replaceChildren(
    h('h1', {}, `Search: ${q}`),
    h('p', { class: 'note', id: 'search-summary' }, more, index),
    table({
      id: 'search-results',
      columns: ['Item', 'Kind', 'Matched', 'Value', 'Title', 'Status', 'Batch'].map((label, i) => ({
        label,
        rowHeader: i === 0,
      })),
      rows,
      empty: `Nothing has the id, uuid, ARK, local id or title "${q}".`,
    }),
  );
  return {};
}
