/* global document */
import { actionBar, notify } from './actions.js';
import { getJson } from './api.js';
import { badge, facts, fill, h, section, when } from './dom.js';
import { throttle } from './live.js';
import { historySection } from './history.js';
import { lockText, traceCell } from './trace.js';

// One job with all its ZooKeeper data, its lock holder, its trace and the actions allowed now.

const json = (value) => h('pre', {}, JSON.stringify(value, null, 2));

/**
 * The job's step failures in its state (its retry record): waiting for its next attempt (when and
 * why), or the class and count of the failure that failed it.
 */
function retryFacts(retry) {
  return section('Retries', 'job-retry', [
    facts([
      ['Waiting to retry', h('span', { id: 'job-retry-waiting' }, retry.waiting ? 'yes' : 'no')],
      [
        'Next attempt',
        retry.next_attempt ? h('span', { id: 'job-retry-next' }, when(retry.next_attempt)) : undefined,
      ],
      ['Failure class', h('span', { id: 'job-retry-class' }, `${retry.class} (${retry.code})`)],
      ['Attempts failed', `${retry.failures} of ${retry.limit} allowed in ${retry.state}`],
      ['Last failure', retry.message],
    ]),
    h(
      'ol',
      { class: 'retry-history' },
      retry.history.map((entry) =>
        h(
          'li',
          {},
          `${entry.at}: ${entry.class} ${entry.code}${entry.engine ? ` on ${entry.engine}` : ''}: ${entry.message}`,
        ),
      ),
    ),
  ]);
}

/** A job removed from ZooKeeper (a cleanup, a batch deleted) keeps its history for the journals' retention. */
const GONE =
  'No job by this id in ZooKeeper (a cleanup removes finished ones): what its history kept is below.';

/** GET /jobs/:jid, or undefined when the job is not in ZooKeeper (404). */
async function jobOrGone(id) {
  try {
    return await getJson(`/jobs/${encodeURIComponent(id)}`);
  } catch (err) {
    if (err.status === 404) return undefined;
    throw err;
  }
}

export async function renderJob(main, { id }) {
  const body = h('div', { id: 'job' });
  const history = historySection('job', id);
  const refresh = async () => {
    void history.reload();
    const item = await jobOrGone(id);
    if (!item) {
      fill(body, h('p', { id: 'job-gone', class: 'muted' }, GONE));
      return;
    }
    const { job } = item;
    fill(
      body,
      facts([
        ['State', badge(job.status, 'job-status')],
        ['Message', job.message ?? undefined],
        ['Batch', h('a', { href: `#/batches/${job.batchId}` }, job.batchId)],
        ['Priority', String(job.priority)],
        ['Retry count', h('span', { id: 'job-retries' }, String(job.retryCount))],
        ['Last successful state', job.lastSuccessfulStatus ?? 'none yet'],
        ['Last modified', when(job.lastModified)],
        ['Space needed', `${job.spaceNeeded} bytes`],
        ['Lock', h('span', { id: 'job-lock' }, lockText(item.lock))],
        ['Trace', traceCell(item.trace)],
      ]),
      ...(item.retry ? [retryFacts(item.retry)] : []),
      actionBar('job', job.jobId, job.status, item.allowedActions, refresh),
      section('ZooKeeper data', 'job-data', [
        h('h3', {}, 'status'),
        json({
          status: job.status,
          last_successful_status: job.lastSuccessfulStatus,
          retry_count: job.retryCount,
          message: job.message,
          last_modified: job.lastModified,
        }),
        h('h3', {}, 'configuration'),
        json(job.configuration),
        ...['identifiers', 'metadata', 'inventory'].flatMap((key) =>
          job[key] ? [h('h3', {}, key), json(job[key])] : [],
        ),
      ]),
    );
  };
  main.replaceChildren(h('h1', {}, `Job ${id}`), body, history.element);
  document.title = `Job ${id} · mrtq`;
  await refresh();
  const later = throttle(
    () => refresh().catch((err) => notify('error', `Could not refresh: ${err.message}`)),
    300,
  );
  return { refresh: later, onTransition: (t) => t.id === id && later(), dispose: later.cancel };
}
