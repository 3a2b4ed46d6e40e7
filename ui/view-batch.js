/* global document */
import { actionBar, notify } from './actions.js';
import { historySection } from './history.js';
import { bulkBar } from './bulk.js';
import { getJson } from './api.js';
import { age, badge, facts, fill, formatTime, h, section, table, when } from './dom.js';
import { cursorPager, listState, markSorted, sortButton } from './list-controls.js';
import { throttle } from './live.js';
import { progressBar } from './progress-bar.js';
import { lockText, traceCell } from './trace.js';

// One batch: its facts, its progress bar, the actions allowed now, its jobs by batch folder (each
// folder a table of its own, paged by cursor and sortable by column), its status report, and a
// timeline (derived by the API from stored timestamps, plus transitions seen live here). Only the
// pages shown are read: a batch of 50,000 jobs draws a page per folder, never every job.

const FOLDERS = ['batch-processing', 'batch-completed', 'batch-failed', 'batch-deleted'];
const DEFAULT_SIZE = 50;

/** The page size from the fragment's query (`#/batches/bid?size=20`), 1-500. */
/** Whether a batch's jobs are all made: its expansion is done, or another tool's made its refs. */
function expanded(batch) {
  return batch.expansion === 'done' || (batch.expansion === 'foreign' && batch.hasStates === true);
}

function sizeOf(query) {
  const size = Number(query?.get?.('size'));
  return Number.isInteger(size) && size >= 1 && size <= 500 ? size : DEFAULT_SIZE;
}

/** One folder's table: its own place (sort, cursor), fetched and drawn by `load`. */
function folderList(bid, folder, size, redraw) {
  const name = folder.replace('batch-', '');
  const holder = h('div', { id: `folder-${name}-list` });
  const list = listState({ sort: 'created', order: 'asc' }, () => void load().catch(redraw));
  const load = async () => {
    const params = list.params();
    params.set('batch', bid);
    params.set('folder', folder);
    params.set('limit', String(size));
    const page = await getJson(`/jobs?${params}`);
    const sortable = { Job: 'created', State: 'state', Priority: 'priority', Changed: 'updated' };
    const labels = ['Job', 'State', 'Priority', 'Retries', 'Last success', 'Message', 'Changed'];
    const columns = labels.map((label, i) => ({
      label: sortable[label] ? sortButton(list, label, sortable[label]) : label,
      rowHeader: i === 0,
      num: label === 'Retries' || label === 'Priority',
    }));
    const rows = page.items.map((j) => ({
      attrs: { 'data-jid': j.jid },
      cells: [
        h('a', { href: `#/jobs/${j.jid}` }, j.jid),
        badge(j.status),
        String(j.priority),
        String(j.retryCount),
        j.lastSuccessfulStatus ?? '',
        j.message ?? '',
        age(j.lastModified),
      ],
    }));
    fill(
      holder,
      h('h3', { id: `folder-${name}` }, `${name[0].toUpperCase()}${name.slice(1)} (${page.total})`),
      markSorted(table({ id: `jobs-${name}`, columns, rows, empty: `No ${name} jobs.` }), list),
      page.total > size
        ? cursorPager(list, page, { id: `pager-${name}`, size, label: `Pages of ${name} jobs` })
        : null,
    );
    return page.items.map((j) => j.jid);
  };
  return { holder, load };
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

export async function renderBatch(main, { id, query }) {
  const body = h('div', { id: 'batch' });
  const live = [];
  let shown = new Set();
  let bid = id;
  let folders;
  const timelineHolder = h('div', { id: 'batch-timeline-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const failed = (err) => notify('error', `Could not load: ${err.message}`);
  const loadJobs = async () => {
    const lists = await Promise.all(folders.map((f) => f.load()));
    shown = new Set(lists.flat());
  };
  let derived;
  const loadTimeline = async () => {
    derived = await getJson(`/batches/${bid}/timeline`);
    fill(timelineHolder, timeline(derived, live));
  };
  let drawn = false;
  const refresh = async () => {
    const item = await getJson(`/batches/${encodeURIComponent(id)}?jobs=none`);
    const { batch } = item;
    bid = batch.batchId;
    folders ??= FOLDERS.map((folder) => folderList(bid, folder, sizeOf(query), failed));
    // The page is drawn once its parts are read, never half-filled. The timeline reads one node
    // set per job (up to 500): with the page when that is no more than a page of jobs, else after.
    const timelineFirst = !drawn && (item.progress?.total ?? 0) <= sizeOf(query);
    await Promise.all([loadJobs(), timelineFirst ? loadTimeline() : undefined]);
    if (!drawn && !timelineFirst) void loadTimeline().catch(failed);
    drawn = true;
    // The transitions seen live are drawn at once; the stored part is re-derived less often.
    if (derived) fill(timelineHolder, timeline(derived, live));
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
        // A batch Merritt's ingest expanded has no count of its own: the API counts its refs.
        ['Jobs', expanded(batch) ? String(batch.jobCount) : 'expansion not finished'],
        ['Lock', h('span', { id: 'batch-lock' }, lockText(item.lock))],
        ['Trace', traceCell(item.trace)],
      ]),
      section('Progress', 'batch-progress', progressBar(item.progress, { id: 'progress' })),
      actionBar('batch', bid, batch.status, item.allowedActions, refresh),
      section('Bulk actions on its jobs', 'batch-bulk', bulkBar({ batch: bid }, `of batch ${bid}`, refresh)),
      section(
        'Jobs by batch folder',
        'batch-jobs',
        folders.map((f) => f.holder),
      ),
      section('Status report', 'batch-report', report(item)),
      section('Timeline', 'batch-timeline', timelineHolder),
    );
  };
  main.replaceChildren(h('h1', {}, `Batch ${id}`), body);
  document.title = `Batch ${id} · mrtq`;
  await refresh();
  // Read once (a batch at work changes with each of its jobs; its history with its own steps).
  main.append(historySection('batch', bid).element);
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    1000,
  );
  // The timeline reads up to 500 jobs: refreshed less often than the rest.
  const laterTimeline = throttle(() => loadTimeline().catch(failed), 3000);
  const onTransition = (t) => {
    const mine = (t.kind === 'batch' && t.id === bid) || (t.kind === 'job' && shown.has(t.id));
    if (mine) live.push(t);
    if (mine) laterTimeline();
    // Any job's move may be one of this batch's (the bar counts them all).
    if (t.kind === 'job' || mine) later();
  };
  return {
    refresh: later,
    onTransition,
    dispose: () => {
      later.cancel();
      laterTimeline.cancel();
    },
  };
}
