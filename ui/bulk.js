import { confirmAction, notify, notifyNotDone } from './actions.js';
import { post } from './api.js';
import { h } from './dom.js';

// Bulk actions (POST /jobs/bulk/<action>): every button first asks for a dry run, shows what it
// would touch, counted, and acts only once the operator confirms. The lifecycle checks every job
// again when it runs; the outcome says how many were done and why the others were refused.

const BULK = [
  { action: 'requeue', label: 'Requeue all', verb: 'requeue' },
  { action: 'release', label: 'Release all', verb: 'release' },
  { action: 'hold', label: 'Hold all', verb: 'hold' },
  { action: 'delete', label: 'Delete all', verb: 'delete', warn: 'This cannot be undone.' },
];

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `INVALID_TRANSITION: 2, LOCK_HELD: 1` */
const reasons = (refusedBy) =>
  Object.entries(refusedBy)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');

function firstRefusals(report) {
  const refused = report.items.filter((item) => item.outcome === 'refused').slice(0, 3);
  return refused.map((item) => ` ${item.jid}: ${item.message}`).join(';');
}

/** The dry run, the confirmation, the run, the outcome. */
export async function runBulk({ action, label, verb, warn }, filter, scope, done) {
  let dry;
  try {
    dry = await post(`/jobs/bulk/${action}`, { ...filter, dryRun: true });
  } catch (err) {
    notifyNotDone(label, err);
    return;
  }
  const { counts, states } = dry;
  const inStates = `in ${states.join(' or ')}`;
  if (counts.would === 0) {
    const refused = counts.refused > 0 ? `; ${counts.refused} refused (${reasons(dry.refusedBy)})` : '';
    notify('ok', `${label}: no job ${scope} ${inStates} to ${verb} (${counts.matched} matched${refused}).`);
    return;
  }
  const refusedNote =
    counts.refused > 0
      ? ` ${plural(counts.refused, 'other job')} would be refused (${reasons(dry.refusedBy)}).`
      : '';
  const text =
    `${verb[0].toUpperCase()}${verb.slice(1)} ${plural(counts.would, 'job')} ${scope} ${inStates}?` +
    `${refusedNote} Each job is checked again by the lifecycle as it runs.${warn ? ` ${warn}` : ''}`;
  const reason = action === 'delete' ? 'required' : 'optional';
  const confirmed = await confirmAction(label, text, `${label}: ${plural(counts.would, 'job')}`, { reason });
  if (!confirmed) return;
  try {
    const why = confirmed.reason ? { reason: confirmed.reason } : {};
    const report = await post(`/jobs/bulk/${action}`, { ...filter, dryRun: false, ...why });
    const { done: n, refused } = report.counts;
    if (refused === 0) notify('ok', `${label}: ${plural(n, 'job')} done.`);
    else
      notify(
        'error',
        `${label}: ${plural(n, 'job')} done, ${refused} refused (${reasons(report.refusedBy)}):${firstRefusals(report)}`,
      );
    await done?.();
  } catch (err) {
    notifyNotDone(label, err);
  }
}

/**
 * A group of bulk buttons over the jobs `filter` selects (`{ batch }`, `{ state, batch }`…);
 * `scope` names them in the texts ("of batch bid…"). Ids: `bulk-requeue`, `bulk-delete`…
 */
export function bulkBar(filter, scope, done) {
  const buttons = BULK.map((spec) =>
    h(
      'button',
      {
        type: 'button',
        id: `bulk-${spec.action}`,
        class: spec.warn ? 'danger' : undefined,
        on: { click: () => runBulk(spec, filter, scope, done) },
      },
      `${spec.label}…`,
    ),
  );
  return h(
    'div',
    { class: 'bulk', id: 'bulk' },
    h('div', { class: 'actions', role: 'group', 'aria-label': `Bulk actions on the jobs ${scope}` }, buttons),
    h(
      'p',
      { class: 'note' },
      `Each acts on every job ${scope} the lifecycle allows it for; it first shows how many, and asks.`,
    ),
  );
}
