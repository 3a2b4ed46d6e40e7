/* global location, URLSearchParams */
import { h } from './dom.js';

// Cursor paging and sortable column headers for the dashboard's lists (issue 21). The API pages
// by cursor: a page names the next page's `after` in `next`. Going back needs the cursors of the
// pages before: each list keeps them in a stack (in memory, per list), so Previous returns to the
// page before and a fresh visit starts at page 1.

/**
 * A list's place: `sort`, `order` and `after` (the cursor), plus the stack of cursors of the
 * pages before this one. `go(change)` moves and calls `onMove` (a view re-fetches).
 */
export function listState(initial = {}, onMove = () => {}) {
  const state = { sort: initial.sort, order: initial.order, after: initial.after, back: [] };
  return {
    get: () => state,
    /** The query parameters of the current page (`limit` added by the caller). */
    params() {
      const params = new URLSearchParams();
      if (state.sort) params.set('sort', state.sort);
      if (state.sort && state.order) params.set('order', state.order);
      if (state.after) params.set('after', state.after);
      return params;
    },
    next(cursor) {
      state.back.push(state.after ?? '');
      state.after = cursor;
      onMove(state);
    },
    previous() {
      const before = state.back.pop();
      state.after = before === '' ? undefined : before;
      onMove(state);
    },
    /** Sorts by `key`: ascending first, descending when it already sorts ascending by it; back to page 1. */
    sortBy(key) {
      state.order = state.sort === key && (state.order ?? 'asc') === 'asc' ? 'desc' : 'asc';
      state.sort = key;
      state.after = undefined;
      state.back = [];
      onMove(state);
    },
  };
}

/** Previous / Next buttons over a cursor-paged list, with where this page is. */
export function cursorPager(list, page, { id, size, label = 'Pages' }) {
  const { back } = list.get();
  const number = back.length + 1;
  const from = back.length * size + 1;
  const shown =
    page.total === 0 ? 'none' : `page ${number}: ${from}–${from + page.items.length - 1} of ${page.total}`;
  return h(
    'nav',
    { class: 'pager', 'aria-label': label, id },
    h(
      'button',
      { type: 'button', rel: 'prev', disabled: back.length === 0, on: { click: () => list.previous() } },
      'Previous page',
    ),
    h('span', { class: 'pager-where' }, `Showing ${shown}`),
    h(
      'button',
      { type: 'button', rel: 'next', disabled: !page.next, on: { click: () => list.next(page.next) } },
      'Next page',
    ),
  );
}

/**
 * A column label that sorts the list by `key` when pressed; the arrow and `aria-sort` (set on
 * the header cell by {@link markSorted}) say how it sorts now.
 */
export function sortButton(list, label, key) {
  const { sort, order = 'asc' } = list.get();
  const active = sort === key;
  const arrow = active ? (order === 'asc' ? ' ▲' : ' ▼') : '';
  return h(
    'button',
    {
      type: 'button',
      class: 'sort',
      'data-sort': key,
      'data-order': active ? order : undefined,
      'aria-label': `${label}: sort ${active && order === 'asc' ? 'descending' : 'ascending'}`,
      on: { click: () => list.sortBy(key) },
    },
    label,
    arrow,
  );
}

/** Sets `aria-sort` on the header cell of the sorting column of `table` (a node table() built). */
export function markSorted(table, list) {
  const { sort, order = 'asc' } = list.get();
  for (const button of table.querySelectorAll?.('th button.sort') ?? []) {
    const th = button.closest('th');
    if (button.dataset.sort === sort)
      th.setAttribute('aria-sort', order === 'asc' ? 'ascending' : 'descending');
    else th.removeAttribute('aria-sort');
  }
  return table;
}

/** The list's sort in the URL fragment's query (`#/batches?sort=…&order=…`), for lists addressed there. */
export function hashWithSort(base, query, state) {
  const params = new URLSearchParams(query);
  params.delete('after');
  params.delete('offset');
  if (state.sort) params.set('sort', state.sort);
  else params.delete('sort');
  if (state.sort && state.order) params.set('order', state.order);
  else params.delete('order');
  if (state.after) params.set('after', state.after);
  location.hash = `${base}?${params}`;
}
