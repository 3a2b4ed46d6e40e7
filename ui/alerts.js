import { getJson } from './api.js';
import { h, table, when } from './dom.js';

// The alert rules on the overview (GET /alerts): each rule with its state, threshold and value,
// the items a firing rule is about; and how long jobs have been in each state.

/** Seconds as the dashboard writes ages: `45 s`, `12 min`, `5 h`, `3 d`. */
export function duration(seconds) {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

const measure = (rule, value) => (rule.unit === 'seconds' ? duration(value) : `${value} ${rule.unit}`);

/** What a rule's value is, in words. */
const VALUE_OF = {
  queue_stopped: 'since the last transition',
  batch_age: 'oldest unfinished batch',
  collection_hold: 'oldest hold',
  job_retries: 'most retries of a job',
  engine_gone: 'engines gone',
};

function stateBadge(rule) {
  if (!rule.enabled) return h('span', { class: 'badge badge--gone' }, 'off');
  return rule.firing
    ? h('span', { class: 'badge badge--bad' }, 'firing')
    : h('span', { class: 'badge badge--ok' }, 'ok');
}

function itemLink(item) {
  if (item.kind === 'batch') return h('a', { href: `#/batches/${item.id}` }, item.id);
  if (item.kind === 'job') return h('a', { href: `#/jobs/${item.id}` }, item.id);
  return item.id;
}

/** A firing rule's items (the first ones), else its note. */
function concerned(rule) {
  if (!rule.firing) return rule.note ?? '';
  const more = rule.itemCount - rule.items.length;
  return h(
    'ul',
    {},
    rule.items.map((item) => h('li', {}, itemLink(item), `: ${item.detail}`)),
    more > 0 ? h('li', {}, `… and ${more} more`) : null,
  );
}

function rulesTable(alerts) {
  const evaluated = alerts.evaluatedAt ? ['Evaluated ', when(alerts.evaluatedAt)] : ['Not evaluated yet'];
  return table({
    id: 'alert-rules',
    caption: h(
      'span',
      {},
      ...evaluated,
      alerts.error ? ` — the last evaluation failed: ${alerts.error}` : '',
      '; thresholds in /policies/alerts (docs/engine.md, "Alerts")',
    ),
    columns: ['Rule', 'State', 'Threshold', 'Value', 'Since', 'Concerned'].map((label, i) => ({
      label,
      rowHeader: i === 0,
    })),
    rows: alerts.rules.map((rule) => ({
      attrs: { 'data-rule': rule.rule, 'data-firing': String(rule.firing) },
      cells: [
        h('span', { title: rule.summary }, rule.rule),
        stateBadge(rule),
        measure(rule, rule.threshold),
        rule.rule === 'engine_gone'
          ? `${rule.value} ${VALUE_OF[rule.rule]}`
          : `${measure(rule, rule.value)} (${VALUE_OF[rule.rule] ?? 'value'})`,
        rule.since ? when(rule.since) : '',
        concerned(rule),
      ],
    })),
    empty: 'No rule evaluated yet.',
  });
}

function agesTable(alerts) {
  const cell = (age, q) => (age.quantiles[q] === undefined ? '' : duration(age.quantiles[q]));
  return table({
    id: 'state-ages',
    caption: 'How long jobs have been in their state (from their ref; a sample in large folders)',
    columns: ['State', 'Jobs', 'Read', 'Median', '90 %', '99 %', 'Oldest'].map((label, i) => ({
      label,
      rowHeader: i === 0,
      num: i > 0,
    })),
    rows: alerts.stateAges
      .filter((age) => age.jobs > 0)
      .map((age) => ({
        attrs: { 'data-state': age.state },
        cells: [
          age.state,
          String(age.jobs),
          age.exact ? 'all' : String(age.read),
          cell(age, '0.5'),
          cell(age, '0.9'),
          cell(age, '0.99'),
          cell(age, '1'),
        ],
      })),
    empty: 'No job waits in a state that is not final.',
  });
}

/** The rules and the time in state, or why they are not shown. */
export async function alertsRegion() {
  let alerts;
  try {
    alerts = await getJson('/alerts');
  } catch (err) {
    return h('p', { class: 'muted', id: 'alert-rules' }, `Alerts not read: ${err.message}`);
  }
  if (!alerts.evaluating)
    return h('p', { class: 'muted', id: 'alert-rules' }, 'This server does not evaluate the alert rules.');
  return h('div', {}, rulesTable(alerts), agesTable(alerts));
}
