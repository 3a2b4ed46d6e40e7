/* global document, URLSearchParams, FormData */
import { notify } from './actions.js';
import { getJson } from './api.js';
import { fill, h, table, when } from './dom.js';

// The audit log (GET /audit): who did what to which item, why, before and after, newest first,
// filtered by item, actor, action and age (issue 35).

const SINCE = [
  ['1h', 'the last hour'],
  ['24h', 'the last day'],
  ['7d', 'the last week'],
  ['30d', 'the last 30 days'],
  ['all', 'all kept'],
];
/** The age shown when the URL names none. */
const SINCE_DEFAULT = '7d';

const itemLink = (item) =>
  item?.startsWith('jid')
    ? h('a', { href: `#/jobs/${item}` }, item)
    : item?.startsWith('bid')
      ? h('a', { href: `#/batches/${item}` }, item)
      : (item ?? '');

function row(entry) {
  const change =
    entry.before !== undefined || entry.after !== undefined
      ? `${entry.before ?? ''} → ${entry.after ?? ''}`
      : '';
  return {
    cells: [
      when(entry.at),
      `${entry.actor.name} (${entry.actor.via}${entry.actor.role ? `, ${entry.actor.role}` : ''})`,
      entry.action,
      itemLink(entry.item),
      change,
      entry.outcome === 'done' ? 'done' : `${entry.outcome}${entry.error ? `: ${entry.error}` : ''}`,
      entry.reason ?? '',
    ],
    attrs: { class: entry.outcome === 'done' ? undefined : 'history-bad' },
  };
}

export async function renderAudit(main, { query }) {
  const params = new URLSearchParams(query ?? '');
  const field = (name, label) =>
    h(
      'label',
      {},
      `${label} `,
      h('input', { name, id: `audit-${name}`, value: params.get(name) ?? '', autocomplete: 'off' }),
    );
  const since = h(
    'select',
    { name: 'since', id: 'audit-since' },
    SINCE.map(([value, label]) =>
      h('option', { value, selected: (params.get('since') ?? SINCE_DEFAULT) === value }, label),
    ),
  );
  const results = h('div', { id: 'audit-results' });
  const form = h(
    'form',
    {
      id: 'audit-filter',
      class: 'filters',
      on: {
        submit: (event) => {
          event.preventDefault();
          const chosen = new URLSearchParams();
          for (const [name, value] of new FormData(event.target))
            if (value !== '') chosen.set(name, String(value));
          const next = `#/audit?${chosen}`;
          // The same filters again: read the log again (the hash would not change, nor the view).
          if (document.location.hash === next) reload();
          else document.location.hash = next;
        },
      },
    },
    field('item', 'Item'),
    field('actor', 'Who'),
    field('action', 'Action'),
    h('label', {}, 'Since ', since),
    h('button', { type: 'submit' }, 'Show'),
  );
  main.replaceChildren(h('h1', {}, 'Audit log'), form, results);
  document.title = 'Audit log · mrtq';
  const load = async () => {
    const asked = new URLSearchParams();
    for (const name of ['item', 'actor', 'action']) if (params.get(name)) asked.set(name, params.get(name));
    const age = params.get('since') ?? SINCE_DEFAULT;
    if (age !== 'all') asked.set('since', age);
    asked.set('limit', '500');
    const answer = await getJson(`/audit?${asked}`);
    const entries = [...answer.entries].reverse();
    fill(
      results,
      table({
        id: 'audit-table',
        caption: `${entries.length} lines, newest first${answer.truncated ? ' (the most recent 500)' : ''}`,
        columns: [
          { label: 'When' },
          { label: 'Who' },
          { label: 'Action' },
          { label: 'Item' },
          { label: 'State' },
          { label: 'Outcome' },
          { label: 'Reason' },
        ],
        rows: entries.map(row),
        empty: 'No operator action matches.',
      }),
    );
  };
  const reload = () => load().catch((err) => notify('error', `Could not read the audit log: ${err.message}`));
  await load();
  return { refresh: reload };
}
