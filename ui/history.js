import { getJson } from './api.js';
import { category, fill, formatTime, h, parseTime, section, table } from './dom.js';

// An item's history (GET /jobs/:jid/history, GET /batches/:bid/history): every step an engine ran
// and every operator action, oldest first, as a timeline on the item's page (issue 35).

/** Events shown before "Show all": the newest, as a job requeued a hundred times is read from its end. */
const SHOWN = 50;

const seconds = (ms) => (ms === undefined ? '' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** `transient failure SIMULATED_TRANSIENT, attempt 2 of 4`; a permanent failure counts no attempts. */
const failureText = (f) =>
  `${f.class} failure ${f.code}${f.failures > 0 ? `, attempt ${f.failures} of ${f.limit}` : ''}`;

/**
 * What kind of line it is, in words (the row's colour says it again): a step, a retry, a failure,
 * a discarded attempt, an operator's action and whether it was refused or failed.
 */
function kindOf(event) {
  if (event.type === 'operator') return event.outcome === 'done' ? 'operator' : `operator, ${event.outcome}`;
  if (event.outcome === 'discarded') return 'discarded';
  if (event.event === 'step.retry') return 'retry';
  return category(event.to) === 'bad' ? 'failure' : 'step';
}

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
    return `${event.state}: attempt ended without a commit (${event.reason ?? 'no reason given'})`;
  if (event.event === 'step.retry' && failure)
    return `${event.state}: ${failureText(failure)}; waits to retry`;
  const transition = `${event.state} → ${event.to} (${event.event})`;
  return failure ? `${transition}: ${failureText(failure)}` : transition;
}

/** How a row stands out: a failure, a discarded attempt or a refused action in red, a retry in amber. */
const MARKS = { retry: 'history-retry', failure: 'history-bad', discarded: 'history-bad' };
const markOf = (event, kind) =>
  event.type === 'operator' ? (event.outcome === 'done' ? undefined : 'history-bad') : MARKS[kind];

/** The event's time, short (a timeline reads down its times; its age would only repeat them). */
const at = (text) =>
  h('time', { datetime: parseTime(text)?.toISOString() }, formatTime(text).replace(/ UTC$/, ''));

function row(event) {
  const kind = kindOf(event);
  const who =
    event.type === 'operator'
      ? `${event.actor.name} (${event.actor.via}${event.actor.role ? `, ${event.actor.role}` : ''})`
      : event.engine;
  return {
    cells: [
      at(event.at),
      kind,
      // The step's message (a failure's, a retry's wait) under what happened: the widest column.
      [what(event), event.message ? h('small', { class: 'history-message' }, event.message) : null],
      who,
      seconds(event.ms),
      seconds(event.inStateMs),
    ],
    attrs: { class: markOf(event, kind), 'data-type': event.type },
  };
}

function caption(answer, shown) {
  const notes = [
    shown < answer.events.length ? `the last ${shown} shown` : '',
    answer.truncated ? 'older events left out' : '',
    answer.unreadable ? `${answer.unreadable} unreadable lines skipped` : '',
  ].filter(Boolean);
  return `${answer.events.length} events, oldest first${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/**
 * The History section of an item's page: loads the item's history and draws it, the last 50
 * events first (a toggle shows all); for a job, a link to its PREMIS events.
 */
export function historySection(kind, id) {
  const holder = h(
    'div',
    { id: `${kind}-history`, class: 'history' },
    h('p', { class: 'muted' }, 'Loading the history…'),
  );
  const path = `/${kind === 'job' ? 'jobs' : 'batches'}/${encodeURIComponent(id)}/history`;
  let all = false;
  let answer = { events: [] };
  const draw = () => {
    const { events } = answer;
    const shown = all ? events : events.slice(-SHOWN);
    fill(
      holder,
      table({
        id: `${kind}-history-table`,
        caption: caption(answer, shown.length),
        columns: [
          { label: 'When (UTC)' },
          { label: 'Kind' },
          { label: 'What' },
          { label: 'Engine or operator' },
          { label: 'Took', num: true },
          { label: 'In state', num: true },
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
        ? h('p', {}, h('a', { href: `${path}?format=premis`, id: 'job-premis' }, 'PREMIS (XML)'))
        : null,
    );
  };
  const load = async () => {
    try {
      answer = await getJson(path);
      draw();
    } catch (err) {
      fill(holder, h('p', { class: 'muted' }, `No history: ${err.message}`));
    }
  };
  void load();
  return { element: section('History', `${kind}-history-section`, holder), reload: load };
}
