import { notify, notifyNotDone, runAction } from './actions.js';
import { getJson, post } from './api.js';
import { h, table, when } from './dom.js';

// Work that runs itself, on the overview: jobs waiting to retry (GET /retries), with "Retry now";
// each collection's fair share in use (GET /policies/shares), with its weight to change.

/** Jobs waiting for their step's next attempt, soonest first; or why they could not be read. */
export async function retryWaitsTable(refresh) {
  let waiting;
  try {
    ({ waiting } = await getJson('/retries'));
  } catch (err) {
    return h('p', { class: 'muted', id: 'retry-waits' }, `Jobs waiting to retry not read: ${err.message}`);
  }
  return table({
    id: 'retry-waits',
    caption: 'Each after a transient failure, waiting for its next attempt (retry policy, docs/engine.md)',
    columns: ['Job', 'State', 'Next attempt', 'Class', 'Attempts', 'Last failure', 'Action'].map(
      (label, i) => ({
        label,
        rowHeader: i === 0,
      }),
    ),
    rows: waiting.map((w) => ({
      attrs: { 'data-job': w.jobId },
      cells: [
        h('a', { href: `#/jobs/${w.jobId}` }, w.jobId),
        w.state,
        when(w.nextAttempt),
        `${w.class} (${w.code})`,
        `${w.failures} of ${w.limit}`,
        w.message,
        h(
          'button',
          {
            type: 'button',
            id: `retry-now-${w.jobId}`,
            on: {
              click: () =>
                runAction({ path: `/jobs/${w.jobId}/retry`, label: `Retry ${w.jobId} now`, done: refresh }),
            },
          },
          'Retry now',
        ),
      ],
    })),
    empty: 'No job waits to retry.',
  });
}

/** A weight's input and its Set button: POST /policies/shares/<key>. */
function weightForm(share, refresh) {
  const input = h('input', {
    type: 'number',
    min: '0.1',
    step: '0.1',
    value: String(share.weight),
    'aria-label': `Weight of ${share.key}`,
    id: `share-weight-${share.key}`,
  });
  const set = async () => {
    const weight = Number(input.value);
    if (!(weight > 0)) {
      notify('error', `Weight of ${share.key}: a number above 0`);
      return;
    }
    try {
      await post(`/policies/shares/${encodeURIComponent(share.key)}`, { weight });
      notify('ok', `Weight of ${share.key}: ${weight}`);
      await refresh();
    } catch (err) {
      notifyNotDone(`Weight of ${share.key}`, err);
    }
  };
  return h('span', {}, input, ' ', h('button', { type: 'button', on: { click: set } }, 'Set weight'));
}

/** Each key's jobs waiting and at work with its weight and cap (this server's engine's view). */
export async function sharesTable(refresh) {
  let shares;
  try {
    shares = await getJson('/policies/shares');
  } catch (err) {
    return h('p', { class: 'muted', id: 'shares' }, `Fair shares not read: ${err.message}`);
  }
  const key = shares.value?.key ?? 'collection';
  return table({
    id: 'shares',
    caption: `New jobs are taken in turn across each ${key}, by weight; a cap bounds its jobs at work`,
    columns: [key, 'Waiting', 'At work', 'Cap', 'Weight'].map((label, i) => ({
      label,
      rowHeader: i === 0,
      num: i > 0 && i < 4,
    })),
    rows: shares.use.map((share) => ({
      attrs: { 'data-share': share.key },
      cells: [
        share.key,
        String(share.waiting),
        String(share.atWork),
        share.cap === undefined ? 'none' : String(share.cap),
        weightForm(share, refresh),
      ],
    })),
    empty: 'No job waits or works here now (or this server runs no engine).',
  });
}
