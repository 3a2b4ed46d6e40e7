/* global document, URLSearchParams */
import { actionBar, notify } from './actions.js';
import { getJson, getLifecycles } from './api.js';
import { age, badge, fill, h, table } from './dom.js';
import { throttle } from './live.js';
import { filterForm, pager, PAGE } from './view-batches.js';

// The access (assembly) requests of both queues, with the actions the access machine allows now
// for each (requeue a failed one, delete a failed or completed one), as mrt-admin lists them.

export async function renderAccess(main, { query }) {
  const { access } = await getLifecycles();
  const statuses = [...access.states.map((s) => s.state), 'invalid'];
  const results = h('div', { id: 'access-results' });
  const refresh = async () => {
    const params = new URLSearchParams(query);
    params.set('limit', String(PAGE));
    const list = await getJson(`/access?${params}`);
    fill(
      results,
      table({
        id: 'access',
        columns: ['Request', 'Status', 'Token', 'Bytes', 'Message', 'Age', 'Locked', 'Actions'].map(
          (label, i) => ({ label, rowHeader: i === 0, num: i === 3 }),
        ),
        rows: list.items.map((r) => {
          const id = `${r.queue}/${r.qid}`;
          return {
            attrs: { 'data-access': id },
            cells: [
              id,
              badge(r.rawStatus ? `${r.status} (${r.rawStatus})` : r.status),
              String(r.token.token ?? ''),
              String(r.token['cloud-content-byte'] ?? ''),
              r.message ?? '',
              age(r.lastModified),
              r.locked ? 'locked' : '',
              actionBar('access', id, r.status, r.allowedActions ?? [], refresh),
            ],
          };
        }),
        empty: 'No access request matches.',
      }),
      pager('#/access', query, list.total),
    );
  };
  main.replaceChildren(
    h('h1', {}, 'Access requests'),
    filterForm(
      '#/access',
      [
        { name: 'queue', label: 'Queue', options: ['small', 'large'] },
        { name: 'status', label: 'Status', options: statuses },
      ],
      query,
    ),
    results,
  );
  document.title = 'Access requests · mrtq';
  await refresh();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    1000,
  );
  // Access transitions are not in the event stream; the live connection's refreshes and an
  // operator's own actions bring the list up to date.
  return { refresh: later, dispose: later.cancel };
}
