import { getJson } from './api.js';
import { fill, h, section, table, when } from './dom.js';

// An item's history (GET /jobs/:jid/history, GET /batches/:bid/history): every step an engine ran
// and every operator action, oldest first, as a timeline on the item's page (issue 35).

/** Events shown before "Show all". */
const SHOWN = 50;

const seconds = (ms) => (ms === undefined ? '' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** What happened, in words. */
function what(event) {
  if (event.type === 'operator') {
    const change = event.after !== undefined ? ` (${event.before ?? '?'} → ${event.after})` : '';
    const why = event.reason ? ` because “${event.reason}”` : '';
    const outcome =
      event.outcome === 'done' ? '' : `: ${event.outcome}${event.error ? `, ${event.error}` : ''}`;
    return `${event.action}${change}${why}${outcome}`;
  }
  const failure = event.detail?.failure;
  if (event.outcome === 'discarded')
    return `${event.state}: attempt ended without a commit (${event.reason ?? ''})`;
  if (event.event === 'step.retry' && failure)
    return `${event.state}: ${failure.class} failure ${failure.code}, attempt ${failure.failures} of ${failure.limit}; waits to retry`;
  return `${event.state} → ${event.to} (${event.event})`;
}

function row(event) {
  const bad = event.type === 'operator' ? event.outcome !== 'done' : event.outcome === 'discarded';
  const who =
    event.type === 'operator'
      ? `${event.actor.name} (${event.actor.via}${event.actor.role ? `, ${event.actor.role}` : ''})`
      : event.engine;
  return {
    cells: [
      when(event.at),
      event.type === 'operator' ? 'operator' : 'step',
      what(event),
      who,
      seconds(event.ms),
      seconds(event.inStateMs),
      event.message ?? '',
    ],
    attrs: { class: bad ? 'history-bad' : undefined, 'data-type': event.type },
  };
}

/**
 * The History section of an item's page: loads the item's history and draws it, the last 50
 * events first (a toggle shows all); for a job, a link to its PREMIS events.
 */
export function historySection(kind, id) {
  const holder = h('div', { id: `${kind}-history` }, h('p', { class: 'muted' }, 'Loading the history…'));
  const path = `/${kind === 'job' ? 'jobs' : 'batches'}/${encodeURIComponent(id)}/history`;
  let all = false;
  let events = [];
  const draw = () => {
    const shown = all ? events : events.slice(-SHOWN);
    fill(
      holder,
      table({
        id: `${kind}-history-table`,
        caption: `${events.length} events, oldest first${shown.length < events.length ? ` (the last ${shown.length} shown)` : ''}`,
        columns: [
          { label: 'When' },
          { label: 'Kind' },
          { label: 'What' },
          { label: 'Engine or operator' },
          { label: 'Took', num: true },
          { label: 'In state', num: true },
          { label: 'Message' },
        ],
        rows: shown.map(row),
        empty: 'No history yet.',
      }),
      events.length > SHOWN
        ? h(
            'button',
            { type: 'button', id: `${kind}-history-all`, on: { click: () => ((all = !all), draw()) } },
            all ? `Show the last ${SHOWN}` : `Show all ${events.length}`,
          )
        : null,
      kind === 'job'
        ? h('p', {}, h('a', { href: `${path}?format=premis`, id: 'job-premis' }, 'PREMIS events (XML)'))
        : null,
    );
  };
  const load = async () => {
    try {
      events = (await getJson(path)).events;
      draw();
    } catch (err) {
      fill(holder, h('p', { class: 'muted' }, `No history: ${err.message}`));
    }
  };
  void load();
  return { element: section('History', `${kind}-history-section`, holder), reload: load };
}
