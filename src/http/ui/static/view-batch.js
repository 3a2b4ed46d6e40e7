/* global document */
import { actionBar, notify } from './actions.js';
import { bulkBar } from './bulk.js';
import { getJson } from './api.js';
import { age, badge, facts, fill, formatTime, h, section, table, when } from './dom.js';
import { throttle } from './live.js';
import { lockText, traceCell } from './trace.js';

// One batch: its facts, the actions allowed now, its jobs by batch folder, its status report,
// and a timeline (derived by the API from stored timestamps, plus transitions seen live here).

const FOLDERS = ['batch-processing', 'batch-completed', 'batch-failed', 'batch-deleted'];

function jobTables(item, summaries) {
  return FOLDERS.map((folder) => {
    const jids = item.jobs.filter((ref) => ref.folder === folder).map((ref) => ref.jid);
    const rows = jids.map((jid) => {
      const j = summaries.get(jid);
      const link = h('a', { href: `#/jobs/${jid}` }, jid);
      if (!j) return { attrs: { 'data-jid': jid }, cells: [link, '', '', '', '', ''] };
      return {
        attrs: { 'data-jid': jid },
        cells: [
          link,
          badge(j.status),
          String(j.retryCount),
          j.lastSuccessfulStatus ?? '',
          j.message ?? '',
          age(j.lastModified),
        ],
      };
    });
    const name = folder.replace('batch-', '');
    return [
      h('h3', { id: `folder-${name}` }, `${name[0].toUpperCase()}${name.slice(1)} (${jids.length})`),
      table({
        id: `jobs-${name}`,
        columns: ['Job', 'State', 'Retries', 'Last success', 'Message', 'Changed'].map((label, i) => ({
          label,
          rowHeader: i === 0,
          num: i === 2,
        })),
        rows,
        empty: `No ${name} jobs.`,
      }),
    ];
  });
}

function report(item) {
  if (!item.report)
    return h(
      'p',
      { class: 'muted', id: 'report' },
      'No status report yet (written when the batch has reported).',
    );
  const r = item.report;
  return h(
    'div',
    { id: 'report' },
    facts([
      ['Written', when(r.last_modified)],
      ['Completed jobs', String(r.successful_jobs.length)],
      [
        'Failed jobs',
        r.failed_jobs.length === 0
          ? 'none'
          : r.failed_jobs.flatMap((jid, i) => [i ? ', ' : '', h('a', { href: `#/jobs/${jid}` }, jid)]),
      ],
    ]),
  );
}

function timeline(derived, live) {
  const entry = (at, text, source, cls) =>
    h(
      'li',
      { class: cls },
      h('time', { datetime: at }, formatTime(at)),
      text,
      h('span', { class: 'source' }, source),
    );
  return [
    h(
      'p',
      { class: 'note', id: 'timeline-note' },
      derived.note,
      derived.jobs.total > derived.jobs.read
        ? ` Only the first ${derived.jobs.read} of ${derived.jobs.total} jobs are read.`
        : '',
    ),
    h(
      'ol',
      { class: 'timeline', id: 'timeline' },
      derived.entries.map((e) => entry(e.at, e.label, `stored: ${e.source}`, 'stored')),
    ),
    h('h3', {}, 'Seen live while this page is open'),
    live.length === 0
      ? h('p', { class: 'muted', id: 'timeline-live' }, 'No transition yet.')
      : h(
          'ol',
          { class: 'timeline', id: 'timeline-live' },
          live.map((t) =>
            entry(t.at, `${t.kind} ${t.id}: ${t.from ?? '(new)'} → ${t.to}`, 'from /events', 'live'),
          ),
        ),
  ];
}

export async function renderBatch(main, { id }) {
  const body = h('div', { id: 'batch' });
  const live = [];
  let jobIds = new Set();
  let bid = id;
  const refresh = async () => {
    const item = await getJson(`/batches/${encodeURIComponent(id)}`);
    const { batch } = item;
    bid = batch.batchId;
    const [jobs, derived] = await Promise.all([
      getJson(`/jobs?batch=${bid}&limit=500`),
      getJson(`/batches/${bid}/timeline`),
    ]);
    jobIds = new Set(item.jobs.map((ref) => ref.jid));
    const summaries = new Map(jobs.items.map((j) => [j.jid, j]));
    const s = batch.submission;
    fill(
      body,
      facts([
        ['Status', badge(batch.status, 'batch-status')],
        ['Message', batch.message ?? undefined],
        ['Batch uuid', s.batchID],
        ['Profile', s.profile_name],
        ['Submitter', s.submitter],
        ['Collection', s.collection],
        ['Payload', `${s.payload_url} (${s.type})`],
        ['Submitted', s.submissionDate ? when(s.submissionDate) : undefined],
        ['Last modified', when(batch.lastModified)],
        ['Jobs', batch.expansion === 'done' ? String(batch.jobCount) : 'expansion not finished'],
        ['Lock', h('span', { id: 'batch-lock' }, lockText(item.lock))],
        ['Trace', traceCell(item.trace)],
      ]),
      actionBar('batch', bid, batch.status, item.allowedActions, refresh),
      section('Bulk actions on its jobs', 'batch-bulk', bulkBar({ batch: bid }, `of batch ${bid}`, refresh)),
      section('Jobs by batch folder', 'batch-jobs', jobTables(item, summaries)),
      section('Status report', 'batch-report', report(item)),
      section('Timeline', 'batch-timeline', timeline(derived, live)),
    );
  };
  main.replaceChildren(h('h1', {}, `Batch ${id}`), body);
  document.title = `Batch ${id} · mrtq`;
  await refresh();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    400,
  );
  const onTransition = (t) => {
    const mine = (t.kind === 'batch' && t.id === bid) || (t.kind === 'job' && jobIds.has(t.id));
    if (mine) live.push(t);
    if (mine || (t.kind === 'job' && t.from === null)) later();
  };
  return { refresh: later, onTransition, dispose: later.cancel };
}
