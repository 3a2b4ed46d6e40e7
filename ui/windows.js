import { runAction } from './actions.js';
import { getJson } from './api.js';
import { h, table } from './dom.js';

// Maintenance windows on the overview (GET /windows): what each holds, whether it holds it now,
// its next occurrence in its own time zone, and a Skip action.

/** `Sun 22 Nov 2026, 02:00` in the window's time zone. */
function local(iso, timezone) {
  const options = { timeZone: timezone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat('en-GB', {
    ...options,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));
}

function span(occurrence, timezone) {
  return h(
    'time',
    { datetime: occurrence.start },
    `${local(occurrence.start, timezone)} → ${local(occurrence.end, timezone)}`,
  );
}

function stateCell(w) {
  if (w.problem) return h('span', { class: 'badge badge--bad' }, `unreadable: ${w.problem}`);
  if (w.active)
    return [h('span', { class: 'badge badge--work' }, 'active'), ' until ', local(w.current.end, w.timezone)];
  if (w.current?.skipped)
    return [
      h('span', { class: 'badge badge--wait' }, 'skipped'),
      ' until ',
      local(w.current.end, w.timezone),
    ];
  return h('span', { class: 'badge badge--ok' }, 'idle');
}

function skipButton(w, refresh) {
  if (w.problem || (!w.active && !w.next)) return '';
  const what = w.active
    ? 'the occurrence in force now (its hold is lifted at once)'
    : `the next occurrence (${local(w.next.start, w.timezone)})`;
  return h(
    'button',
    {
      type: 'button',
      id: `window-skip-${w.name}`,
      class: 'danger',
      on: {
        click: () =>
          runAction({
            path: `/windows/${encodeURIComponent(w.name)}/skip`,
            label: `Skip window ${w.name}`,
            confirm: `Skip ${what} of maintenance window ${w.name}?`,
            done: refresh,
          }),
      },
    },
    `Skip ${w.name}`,
  );
}

function target(w) {
  if (!w.target) return '';
  return w.target.queue !== undefined ? `queue ${w.target.queue}` : `collection ${w.target.collection}`;
}

/** The windows' table, or why it could not be read (the rest of the overview stays). */
export async function windowsTable(refresh) {
  let items;
  try {
    ({ items } = await getJson('/windows'));
  } catch (err) {
    return h('p', { class: 'muted', id: 'windows' }, `Maintenance windows not read: ${err.message}`);
  }
  return table({
    id: 'windows',
    caption: 'Each holds its queue or collection from its start for its duration (docs/engine.md)',
    columns: ['Window', 'Holds', 'Schedule', 'Now', 'Next window', 'Reason', 'Action'].map((label, i) => ({
      label,
      rowHeader: i === 0,
    })),
    rows: items.map((w) => ({
      attrs: { 'data-window': w.name, 'data-active': String(w.active) },
      cells: [
        w.name,
        target(w),
        w.cron ? `${w.cron} for ${w.duration} (${w.timezone})` : '',
        stateCell(w),
        w.next ? span(w.next, w.timezone) : 'none',
        w.reason ?? '',
        skipButton(w, refresh),
      ],
    })),
    empty: 'No maintenance window.',
  });
}
