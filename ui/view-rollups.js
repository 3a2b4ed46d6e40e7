/* global document */
import { notify } from './actions.js';
import { getJson } from './api.js';
import { age, fill, h, table } from './dom.js';
import { throttle } from './live.js';
import { progressBar } from './progress-bar.js';

// Totals per collection or per profile (issue 21): jobs by state, a progress bar, and the oldest
// waiting job. The states and which of them count as done, failed, in flight or waiting come from
// the API (derived from the lifecycle), never from this page.

const KEYS = [
  ['collection', 'By collection'],
  ['profile', 'By profile'],
];

function tabs(by) {
  return h(
    'nav',
    { class: 'tabs', 'aria-label': 'Group by' },
    KEYS.map(([key, label]) =>
      h(
        'a',
        {
          href: `#/rollups?by=${key}`,
          id: `rollups-by-${key}`,
          'aria-current': key === by ? 'page' : undefined,
        },
        label,
      ),
    ),
  );
}

function oldest(group) {
  const o = group.oldestWaiting;
  if (!o) return '';
  return h('span', {}, h('a', { href: `#/jobs/${o.jid}` }, o.jid), ` ${o.state}, ${age(o.since)}`);
}

function rollupTable(body) {
  const name = body.by === 'profile' ? 'Profile' : 'Collection';
  const states = body.states.filter((state) => body.groups.some((g) => g.states[state]));
  const link = (group) =>
    body.by === 'collection' && group.key
      ? h('a', { href: `#/jobs?collection=${encodeURIComponent(group.key)}` }, group.key)
      : group.key || '(none)';
  return table({
    id: 'rollups',
    columns: [name, 'Jobs', 'Progress', ...states, 'Oldest waiting'].map((label, i) => ({
      label,
      rowHeader: i === 0,
      num: i === 1 || (i >= 3 && i < 3 + states.length),
    })),
    rows: body.groups.map((group) => ({
      attrs: { 'data-key': group.key },
      cells: [
        link(group),
        String(group.total),
        progressBar(group.progress, { compact: true }),
        ...states.map((state) => h('span', { 'data-state': state }, String(group.states[state] ?? 0))),
        oldest(group),
      ],
    })),
    empty: 'No jobs.',
  });
}

function note(body) {
  const c = body.categories;
  const words = (list) => list.join(', ') || 'none';
  return h(
    'p',
    { class: 'note', id: 'rollups-note' },
    `Done: ${words(c.done)}; failed: ${words(c.failed)}; in flight: ${words(c.inFlight)}; waiting: ${words(c.waiting)}. `,
    `Counted from an index of ${body.index.jobs} jobs this service keeps (at most 2 s old; its last refresh read ${body.index.lastRead} jobs in ${body.index.lastRefreshMs} ms).`,
  );
}

export async function renderRollups(main, { query }) {
  const by = query.get('by') === 'profile' ? 'profile' : 'collection';
  const results = h('div', { id: 'rollups-results' });
  const refresh = async () => {
    const body = await getJson(`/rollups?by=${by}`);
    fill(results, rollupTable(body), note(body));
  };
  main.replaceChildren(h('h1', {}, 'Totals'), tabs(by), results);
  document.title = 'Totals · mrtq';
  await refresh();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    2000,
  );
  return { refresh: later, onTransition: (t) => t.kind === 'job' && later(), dispose: later.cancel };
}
