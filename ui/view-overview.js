/* global document, DOMParser */
import { notify, runAction } from './actions.js';
import { getBatchStatuses, getJobStates, getJson, getText } from './api.js';
import { age, badge, facts, fill, formatTime, h, section, table } from './dom.js';
import { throttle } from './live.js';
import { liveCharts } from './view-charts.js';
import { windowsTable } from './windows.js';
import { retryWaitsTable, sharesTable } from './work-policies.js';
import { alertsRegion } from './alerts.js';

// The queue at a glance: counts, holds, the ZooKeeper session, engine processes, the newest
// batches and the lifecycles with their counts. Everything comes from the API (/overview; the
// states to list from /lifecycle).

function countsTable(id, caption, states, counts, link) {
  return table({
    id,
    caption,
    columns: [
      { label: 'State', rowHeader: true },
      { label: 'Count', num: true },
    ],
    rows: states
      .filter((state) => state !== 'invalid' || (counts[state] ?? 0) > 0)
      .map((state) => ({
        attrs: { 'data-state': state },
        cells: [h('a', { href: link(state) }, state), String(counts[state] ?? 0)],
      })),
    empty: 'Nothing counted.',
  });
}

function queueRows(queues, refresh) {
  return queues.map((queue) => {
    const action = queue.paused ? 'resume' : 'pause';
    const label = `${queue.paused ? 'Resume' : 'Pause'} ${queue.name}`;
    const confirm = queue.paused
      ? undefined
      : `Pause the ${queue.name} queue? Its consumers acquire nothing until it is resumed.`;
    const button = h(
      'button',
      {
        type: 'button',
        id: `queue-${action}-${queue.name}`,
        class: confirm ? 'danger' : undefined,
        on: {
          click: () => runAction({ path: `/queues/${queue.name}/${action}`, label, confirm, done: refresh }),
        },
      },
      label,
    );
    return {
      attrs: { 'data-queue': queue.name },
      cells: [queue.name, queue.paused ? 'paused' : 'running', button],
    };
  });
}

function heldRows(collections, refresh) {
  return collections.map((name) => [
    name,
    h(
      'button',
      {
        type: 'button',
        id: `collection-release-${name}`,
        on: {
          click: () =>
            runAction({
              path: `/collections/${encodeURIComponent(name)}/release`,
              label: `Release collection ${name}`,
              done: refresh,
            }),
        },
      },
      `Release ${name}`,
    ),
  ]);
}

/**
 * An engine's deployment and what it leaves to Merritt's services (job states, access queues),
 * as it announced them; an engine of an older version announces no deployment.
 */
function deploymentCell(e) {
  if (!e.deployment) return 'unknown';
  const left = [
    ...(e.leftToMerritt ?? []).map((l) => `${l.state} (${l.service})`),
    ...(e.accessLeftToMerritt ?? []).map((l) => `access ${l.queue} (${l.service})`),
  ];
  return left.length > 0 ? `${e.deployment}; left to Merritt: ${left.join(', ')}` : e.deployment;
}

function engineRows(engines) {
  return engines.map((e) => [
    e.id,
    `${e.host} (pid ${e.pid})`,
    e.version,
    deploymentCell(e),
    e.states.join(', ') || 'none',
    e.batchWork.join(', ') || 'none',
    e.startedAt ? `${formatTime(e.startedAt)} (${age(e.startedAt)} ago)` : '',
    e.httpUrl ?? '',
    `0x${e.sessionId}`,
  ]);
}

function batchRows(items) {
  return items.map((b) => ({
    attrs: { 'data-bid': b.bid },
    cells: [
      h('a', { href: `#/batches/${b.bid}` }, b.bid),
      badge(b.status),
      b.profile,
      b.submitter,
      `${b.counts.completed} / ${b.jobCount ?? '?'}`,
      b.counts.failed ? String(b.counts.failed) : '0',
      age(b.lastModified),
    ],
  }));
}

function holdForm(refresh) {
  const input = h('input', {
    id: 'collection-mnemonic',
    name: 'mnemonic',
    required: true,
    pattern: '[A-Za-z0-9._-]+',
  });
  const submit = async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    await runAction({
      path: `/collections/${encodeURIComponent(name)}/hold`,
      label: `Hold collection ${name}`,
      done: refresh,
    });
  };
  return h(
    'form',
    { class: 'inline', id: 'collection-hold-form', on: { submit } },
    h('label', { for: 'collection-mnemonic' }, 'Collection mnemonic', input),
    h('button', { type: 'submit' }, 'Hold collection'),
  );
}

async function diagram(lifecycle, title) {
  const figure = h('figure', { class: 'lifecycle', id: `diagram-${lifecycle}` }, h('figcaption', {}, title));
  const text = await getText(`/machines/${lifecycle}/diagram`);
  const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  figure.append(document.importNode(svg, true));
  return figure;
}

/** Puts the API's counts on the diagram's states. */
function updateDiagram(lifecycle, counts) {
  for (const text of document.querySelectorAll(`#diagram-${lifecycle} [data-count-for]`)) {
    const count = counts[text.getAttribute('data-count-for')] ?? 0;
    text.textContent = String(count);
    text.parentElement.classList.toggle('state--busy', count > 0);
  }
}

export async function renderOverview(main) {
  const [jobStateList, batchStatusList] = await Promise.all([getJobStates(), getBatchStatuses()]);
  const regions = Object.fromEntries(
    ['alerts', 'state', 'windows', 'retries', 'shares', 'engines', 'jobs', 'batches', 'recent'].map((k) => [
      k,
      h('div', { id: `overview-${k}` }),
    ]),
  );
  const refresh = async () => {
    const [overview, recent, windows, retries, shares, alerts] = await Promise.all([
      getJson('/overview'),
      getJson('/batches?limit=10'),
      windowsTable(refresh),
      retryWaitsTable(refresh),
      sharesTable(refresh),
      alertsRegion(),
    ]);
    fill(regions.alerts, alerts);
    fill(
      regions.state,
      facts([['ZooKeeper session (this server)', badge(overview.session, 'session-state')]]),
      table({
        id: 'queues',
        caption: 'Queues',
        columns: [{ label: 'Queue', rowHeader: true }, { label: 'State' }, { label: 'Action' }],
        rows: queueRows(overview.queues, refresh),
        empty: '',
      }),
      table({
        id: 'collections-held',
        caption: 'Collections on hold',
        columns: [{ label: 'Collection', rowHeader: true }, { label: 'Action' }],
        rows: heldRows(overview.collectionsHeld, refresh),
        empty: 'No collection is on hold.',
      }),
    );
    fill(regions.windows, windows);
    fill(regions.retries, retries);
    fill(regions.shares, shares);
    fill(
      regions.engines,
      table({
        id: 'engines',
        columns: [
          'Engine',
          'Host',
          'Version',
          'Deployment',
          'Job states',
          'Batch work',
          'Started',
          'HTTP',
          'Session',
        ].map((label, i) => ({ label, rowHeader: i === 0 })),
        rows: engineRows(overview.engines),
        empty: 'No engine process is registered.',
      }),
    );
    fill(
      regions.jobs,
      countsTable('job-counts', 'Jobs per state', jobStateList, overview.jobs, (s) => `#/jobs?state=${s}`),
    );
    fill(
      regions.batches,
      countsTable(
        'batch-counts',
        'Batches per status',
        batchStatusList,
        overview.batches,
        (s) => `#/batches?status=${s}`,
      ),
    );
    fill(
      regions.recent,
      table({
        id: 'recent-batches',
        caption: `${recent.total} ${recent.total === 1 ? 'batch' : 'batches'} in all`,
        columns: [
          { label: 'Batch', rowHeader: true },
          { label: 'Status' },
          { label: 'Profile' },
          { label: 'Submitter' },
          { label: 'Jobs completed', num: true },
          { label: 'Failed', num: true },
          { label: 'Changed' },
        ],
        rows: batchRows(recent.items),
        empty: 'No batches yet.',
      }),
    );
    updateDiagram('job', overview.jobs);
    updateDiagram('batch', overview.batches);
  };
  const diagrams = await Promise.all([diagram('job', 'Job lifecycle'), diagram('batch', 'Batch lifecycle')]);
  const charts = liveCharts();
  main.replaceChildren(
    h('h1', {}, 'Overview'),
    section('Alerts and time in state', 'alerts', regions.alerts),
    h(
      'div',
      { class: 'grid' },
      section('Queue', 'queue', regions.state, holdForm(refresh)),
      section('Jobs', 'jobs', regions.jobs),
      section('Batches', 'batches', regions.batches),
    ),
    section('Maintenance windows', 'windows', regions.windows),
    section('Jobs waiting to retry', 'retries', regions.retries),
    section('Fair shares', 'shares', regions.shares),
    section('Activity, last hour', 'activity', charts.element),
    section('Newest batches', 'recent', regions.recent),
    section('Engine processes', 'engines', regions.engines),
    section(
      'Lifecycles and where the items are',
      'lifecycles',
      h(
        'p',
        { class: 'note' },
        'Drawn from the machines’ transition tables; each state shows how many items are in it now. Hover an arrow for its events and guards.',
      ),
      h('div', { class: 'lifecycles' }, diagrams),
    ),
  );
  document.title = 'Overview · mrtq';
  await refresh();
  charts.start();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    500,
  );
  const dispose = () => {
    later.cancel();
    charts.dispose();
  };
  return { refresh: later, onTransition: later, dispose };
}
