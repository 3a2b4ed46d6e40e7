import { beforeAll, describe, expect, it } from 'vitest';
import type { BatchEvent, JobEvent, JobState } from '../../../machines/index.js';
import { deleteBatch, holdBatch, updateReport } from '../../../src/admin/batches.js';
import { deleteJob, holdJob, releaseJob, requeueJob } from '../../../src/admin/jobs.js';
import { acquireBatch, type BatchWork } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { commitBatchTransition, type BatchCommitOptions } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { acquireJob } from '../../../src/queue/jobs/acquire.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { commitJobTransition, type JobCommitOptions } from '../../../src/queue/jobs/transition.js';
import { cleanup } from '../../../src/admin/cleanup.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { diffTrees, parsed, snapshot, type Tree } from '../../support/tree-diff.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Replays the walkthrough of seed 003 step by step. After each step the whole tree is dumped
// (`mrtq tree --json`'s reader), ids are replaced by labels, and the difference from the step
// before must be exactly the znodes the seed writes and deletes for that step.

const chroot = useZkChroot();
const T = '2026-11-21 09:34:25 +0000';
const NOW = new Date('2026-11-21T09:34:25Z');
const UUID = 'c3a0f1e2-0001';

type Status = Record<string, unknown>;
const jobStatus = (status: string, last: string | null, retry = 0, message?: string): Status => ({
  status,
  last_successful_status: last,
  last_modified: T,
  retry_count: retry,
  ...(message ? { message } : {}),
});
const batchStatus = (status: string, extra: Record<string, unknown> = {}): Status => ({
  status,
  last_modified: T,
  ...extra,
});

describe('the queue tree follows the walkthrough of seed 003', () => {
  let ctx: QueueContext;
  const labels = new Map<string, string>();
  let tree: Tree;
  let bid = '';
  const jids: string[] = [];

  /** Runs `work` and returns the seed-style diff of the whole tree it caused. */
  async function step(work: () => Promise<unknown>) {
    await work();
    const after = await snapshot(ctx.zk, labels);
    const diff = parsed(diffTrees(tree, after));
    tree = after;
    return diff;
  }

  async function job(jid: string, state: JobState, event: JobEvent, options?: JobCommitOptions) {
    const acquired = await acquireJob(ctx, state, { skip: (j) => j !== jid });
    if (!acquired) throw new Error(`could not acquire ${jid} in ${state}`);
    return commitJobTransition(ctx, acquired, event, options);
  }

  async function batch(work: BatchWork, event: BatchEvent, options?: BatchCommitOptions) {
    const acquired = await acquireBatch(ctx, work, { candidates: [bid] });
    if (!acquired) throw new Error(`could not acquire ${bid} for ${work}`);
    return commitBatchTransition(ctx, acquired, event, options);
  }

  const J = (n: number): string => jids[n - 1] as string;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect(), () => NOW);
    await ensureQueueTree(ctx.zk);
    tree = await snapshot(ctx.zk, labels);
  });

  it('User submits a submission payload: a batch is created, pending', async () => {
    const submission = {
      profile_name: 'profile_name',
      submitter: 'submitter',
      payload_url: 'https://example.org/batch.checkm',
      erc_what: 'title',
      erc_who: 'author',
      erc_when: 'date',
      erc_where: '',
      type: 'file',
      submission_mode: 'add',
      batchID: UUID,
    };
    const diff = await step(async () => {
      bid = (await createBatch(ctx, submission)).bid;
      labels.set(bid, 'BID1');
    });
    expect(diff).toEqual({
      written: {
        '/batches/BID1': '',
        '/batches/BID1/submission': submission,
        '/batches/BID1/status': batchStatus('Pending'),
        [`/batch-uuids/${UUID}`]: 'BID1',
      },
      deleted: [],
    });
  });

  it('Pending -> Processing: the batch is locked and acquired', async () => {
    const diff = await step(() => batch('expand', { type: 'batch.acquired' }, { release: false }));
    expect(diff).toEqual({
      written: {
        // `expansion` (ignored by mrt-zk's readers) tells a crashed expansion from a finished one.
        '/batches/BID1/status': batchStatus('Processing', { expansion: 'started' }),
        '/batches/BID1/states': '',
        '/batches/BID1/states/batch-processing': '',
        '/batches/BID1/states/batch-completed': '',
        '/batches/BID1/states/batch-failed': '',
        '/batches/BID1/states/batch-deleted': '',
        '/batches/BID1/lock (ephemeral)': '',
      },
      deleted: [],
    });
  });

  it('one job is spawned per object, each written in 3 places (job, batch queue, job queue)', async () => {
    const objects = [
      { local: 'loc001', ark: '' },
      { local: 'loc002', ark: '' },
      { local: 'loc003', ark: 'ark123' },
    ];
    const diff = await step(async () => {
      const { created } = await createJobs(
        ctx,
        bid,
        objects.map((o, i) => ({
          position: i,
          configuration: {
            profile_name: 'profile_name',
            submitter: 'submitter',
            payload_url: `file${i + 1}.checkm`,
            payload_type: 'object_manifest',
            response_type: 'tbd',
            submission_mode: 'add',
          },
          identifiers: { primary_id: o.ark, local_id: [o.local] },
        })),
      );
      created.forEach((c, i) => {
        jids.push(c.jid);
        labels.set(c.jid, `JID${i + 1}`);
      });
    });
    const expected: Record<string, unknown> = {};
    objects.forEach((o, i) => {
      const j = `JID${i + 1}`;
      Object.assign(expected, {
        [`/jobs/${j}`]: '',
        [`/jobs/${j}/bid`]: 'BID1',
        [`/jobs/${j}/configuration`]: {
          profile_name: 'profile_name',
          submitter: 'submitter',
          payload_url: `file${i + 1}.checkm`,
          payload_type: 'object_manifest',
          response_type: 'tbd',
          submission_mode: 'add',
          manifest_position: i,
        },
        [`/jobs/${j}/identifiers`]: { primary_id: o.ark, local_id: [o.local] },
        [`/jobs/${j}/status`]: jobStatus('Pending', null),
        [`/jobs/${j}/priority`]: '5',
        [`/jobs/${j}/space_needed`]: '0',
        [`/jobs/states/pending/05-${j}`]: '',
        [`/batches/BID1/states/batch-processing/${j}`]: '',
      });
    });
    expect(diff).toEqual({ written: expected, deleted: [] });
  });

  it('expansion done: the batch stays processing and releases its lock', async () => {
    const diff = await step(async () => {
      const acquired = await acquireBatch(ctx, 'expand', { candidates: [bid] });
      // The expander still holds the lock, so nobody else can take the batch.
      expect(acquired).toBeUndefined();
      const { lock } = { lock: { path: `/batches/${bid}/lock`, sessionId: ctx.zk.sessionId } };
      const { loadBatch } = await import('../../../src/queue/batches/load.js');
      await commitBatchTransition(
        ctx,
        { batch: await loadBatch(ctx, bid), lock },
        { type: 'expand.done', jobCount: 3 },
      );
    });
    expect(diff).toEqual({
      written: { '/batches/BID1/status': batchStatus('Processing', { job_count: 3 }) },
      deleted: ['/batches/BID1/lock (ephemeral)'],
    });
  });

  it('Pending -> Held (collection hold), then Held -> Pending (admin release)', async () => {
    expect(await step(() => job(J(1), 'pending', { type: 'job.held' }))).toEqual({
      written: { '/jobs/JID1/status': jobStatus('Held', null), '/jobs/states/held/05-JID1': '' },
      deleted: ['/jobs/states/pending/05-JID1'],
    });
    expect(await step(() => releaseJob(ctx, J(1)))).toEqual({
      written: { '/jobs/JID1/status': jobStatus('Pending', null), '/jobs/states/pending/05-JID1': '' },
      deleted: ['/jobs/states/held/05-JID1'],
    });
  });

  it('Pending -> Estimating -> Provisioning, with the priority changing 05 -> 10 in the ref', async () => {
    expect(await step(() => job(J(1), 'pending', { type: 'job.acquired' }))).toEqual({
      written: { '/jobs/JID1/status': jobStatus('Estimating', null), '/jobs/states/estimating/05-JID1': '' },
      deleted: ['/jobs/states/pending/05-JID1'],
    });
    const estimate = { type: 'estimate.done' as const, spaceNeeded: 1_000_000_000, priority: 10 };
    expect(await step(() => job(J(1), 'estimating', estimate))).toEqual({
      written: {
        '/jobs/JID1/space_needed': '1000000000',
        '/jobs/JID1/priority': '10',
        '/jobs/JID1/status': jobStatus('Provisioning', 'Estimating'),
        '/jobs/states/provisioning/10-JID1': '',
      },
      deleted: ['/jobs/states/estimating/05-JID1'],
    });
  });

  it('Provisioning -> Downloading -> Processing -> Recording -> Notify -> Completed', async () => {
    expect(await step(() => job(J(1), 'provisioning', { type: 'provision.done' }))).toEqual({
      written: {
        '/jobs/JID1/status': jobStatus('Downloading', 'Provisioning'),
        '/jobs/states/downloading/10-JID1': '',
      },
      deleted: ['/jobs/states/provisioning/10-JID1'],
    });
    expect(await step(() => job(J(1), 'downloading', { type: 'download.done' }))).toEqual({
      written: {
        '/jobs/JID1/status': jobStatus('Processing', 'Downloading'),
        '/jobs/states/processing/10-JID1': '',
      },
      deleted: ['/jobs/states/downloading/10-JID1'],
    });
    const identifiers = { primary_id: 'ark:/99999/fk4555', local_id: ['loc001'] };
    // Processing hands off to storage and inventory in the same multi (mrt-zk since October 2025).
    const store = {
      manifest_url: 'file:///work/BID1/JID1/system/mrt-manifest.txt',
      mode: 'add/7777/ark%3A%2F99999%2Ffk4555',
      delete: '',
    };
    const inventory = { manifest_url: 'mrtq:store/manifest/7777/ark%3A%2F99999%2Ffk4555', mode: '' };
    expect(
      await step(() => job(J(1), 'processing', { type: 'process.done' }, { identifiers, store, inventory })),
    ).toEqual({
      written: {
        '/jobs/JID1/identifiers': identifiers,
        '/jobs/JID1/store': store,
        '/jobs/JID1/inventory': inventory,
        '/jobs/JID1/status': jobStatus('Storing', 'Processing'),
        '/jobs/states/storing/10-JID1': '',
      },
      deleted: ['/jobs/states/processing/10-JID1'],
    });
    expect(await step(() => job(J(1), 'storing', { type: 'store.done' }))).toEqual({
      written: {
        '/jobs/JID1/status': jobStatus('Recording', 'Storing'),
        '/jobs/states/recording/10-JID1': '',
      },
      deleted: ['/jobs/states/storing/10-JID1'],
    });
    expect(await step(() => job(J(1), 'recording', { type: 'record.done' }))).toEqual({
      written: { '/jobs/JID1/status': jobStatus('Notify', 'Recording'), '/jobs/states/notify/10-JID1': '' },
      deleted: ['/jobs/states/recording/10-JID1'],
    });
    expect(await step(() => job(J(1), 'notify', { type: 'notify.done' }))).toEqual({
      written: {
        '/jobs/JID1/status': jobStatus('Completed', 'Notify'),
        '/jobs/states/completed/10-JID1': '',
        '/batches/BID1/states/batch-completed/JID1': '',
      },
      deleted: ['/batches/BID1/states/batch-processing/JID1', '/jobs/states/notify/10-JID1'],
    });
  });

  it('each failing step fails the job keeping last_successful_status; requeue resumes after it with retry_count + 1', async () => {
    await job(J(2), 'pending', { type: 'job.acquired' });
    await job(J(2), 'estimating', { type: 'estimate.done', spaceNeeded: 0 });
    await job(J(2), 'provisioning', { type: 'provision.done' });
    tree = await snapshot(ctx.zk, labels);

    const failures = [
      {
        at: 'downloading',
        event: 'download.failed',
        last: 'Provisioning',
        resume: 'Downloading',
        next: 'download.done',
      },
      {
        at: 'processing',
        event: 'process.failed',
        last: 'Downloading',
        resume: 'Processing',
        next: 'process.done',
      },
      {
        at: 'storing',
        event: 'store.failed',
        last: 'Processing',
        resume: 'Storing',
        next: 'store.done',
      },
      {
        at: 'recording',
        event: 'record.failed',
        last: 'Storing',
        resume: 'Recording',
        next: 'record.done',
      },
      { at: 'notify', event: 'notify.failed', last: 'Recording', resume: 'Notify', next: undefined },
    ] as const;
    let retry = 0;
    for (const f of failures) {
      const message = `${f.at} failed`;
      expect(await step(() => job(J(2), f.at, { type: f.event, message }))).toEqual({
        written: {
          '/jobs/JID2/status': jobStatus('Failed', f.last, retry, message),
          '/jobs/states/failed/05-JID2': '',
          '/batches/BID1/states/batch-failed/JID2': '',
        },
        deleted: ['/batches/BID1/states/batch-processing/JID2', `/jobs/states/${f.at}/05-JID2`],
      });
      retry += 1;
      expect(await step(() => requeueJob(ctx, J(2)))).toEqual({
        written: {
          '/jobs/JID2/status': jobStatus(f.resume, f.last, retry),
          [`/jobs/states/${f.at}/05-JID2`]: '',
          '/batches/BID1/states/batch-processing/JID2': '',
        },
        deleted: ['/batches/BID1/states/batch-failed/JID2', '/jobs/states/failed/05-JID2'],
      });
      if (f.next) await job(J(2), f.at, { type: f.next });
      tree = await snapshot(ctx.zk, labels);
    }
    await job(J(2), 'notify', { type: 'notify.failed', message: 'callback refused' });
    tree = await snapshot(ctx.zk, labels);
  });

  it('a held job is deleted by an operator: its refs move to deleted and batch-deleted', async () => {
    expect(await step(() => holdJob(ctx, J(3)))).toEqual({
      written: { '/jobs/JID3/status': jobStatus('Held', null), '/jobs/states/held/05-JID3': '' },
      deleted: ['/jobs/states/pending/05-JID3'],
    });
    expect(await step(() => deleteJob(ctx, J(3)))).toEqual({
      written: {
        '/jobs/JID3/status': jobStatus('Deleted', null),
        '/jobs/states/deleted/05-JID3': '',
        '/batches/BID1/states/batch-deleted/JID3': '',
      },
      deleted: ['/batches/BID1/states/batch-processing/JID3', '/jobs/states/held/05-JID3'],
    });
  });

  it('batch-processing is empty: the batch reports, and fails because a job failed', async () => {
    expect(await step(() => batch('report', { type: 'batch.jobs-done' }, { release: false }))).toEqual({
      written: {
        '/batches/BID1/status': batchStatus('Reporting', { job_count: 3 }),
        '/batches/BID1/lock (ephemeral)': '',
      },
      deleted: [],
    });
    const report = { failed_jobs: [J(2)], successful_jobs: [J(1)] };
    const done = { type: 'report.done' as const, completedJobs: 1, failedJobs: 1 };
    const diff = await step(async () => {
      const { loadBatch } = await import('../../../src/queue/batches/load.js');
      const lock = { path: `/batches/${bid}/lock`, sessionId: ctx.zk.sessionId };
      await commitBatchTransition(ctx, { batch: await loadBatch(ctx, bid), lock }, done, { report });
    });
    expect(diff).toEqual({
      written: {
        '/batches/BID1/status': batchStatus('Failed', { job_count: 3 }),
        '/batches/BID1/status-report': { last_modified: T, failed_jobs: ['JID2'], successful_jobs: ['JID1'] },
      },
      deleted: ['/batches/BID1/lock (ephemeral)'],
    });
  });

  it('Failed -> UpdateReporting (admin) -> Failed with an updated report', async () => {
    expect(await step(() => updateReport(ctx, bid))).toEqual({
      written: { '/batches/BID1/status': batchStatus('UpdateReporting', { job_count: 3 }) },
      deleted: [],
    });
    const report = { failed_jobs: [J(2)], successful_jobs: [J(1)] };
    const done = { type: 'report.done' as const, completedJobs: 1, failedJobs: 1 };
    expect(await step(() => batch('update-report', done, { report, hasReport: true }))).toEqual({
      written: { '/batches/BID1/status': batchStatus('Failed', { job_count: 3 }) },
      deleted: [],
    });
  });

  it('requeueing a failed job of a failed batch reopens the batch in the same transaction; it then completes', async () => {
    expect(await step(() => requeueJob(ctx, J(2)))).toEqual({
      written: {
        '/jobs/JID2/status': jobStatus('Notify', 'Recording', 6),
        '/jobs/states/notify/05-JID2': '',
        '/batches/BID1/states/batch-processing/JID2': '',
        '/batches/BID1/status': batchStatus('Processing', { job_count: 3 }),
      },
      deleted: ['/batches/BID1/states/batch-failed/JID2', '/jobs/states/failed/05-JID2'],
    });
    await job(J(2), 'notify', { type: 'notify.done' });
    await batch('report', { type: 'batch.jobs-done' }, { release: false });
    tree = await snapshot(ctx.zk, labels);
    const { loadBatch } = await import('../../../src/queue/batches/load.js');
    const lock = { path: `/batches/${bid}/lock`, sessionId: ctx.zk.sessionId };
    const report = { failed_jobs: [], successful_jobs: [J(1), J(2)] };
    const done = { type: 'report.done' as const, completedJobs: 2, failedJobs: 0 };
    const diff = await step(async () => {
      await commitBatchTransition(ctx, { batch: await loadBatch(ctx, bid), lock }, done, {
        report,
        hasReport: true,
      });
    });
    expect(diff).toEqual({
      written: {
        '/batches/BID1/status': batchStatus('Completed', { job_count: 3 }),
        '/batches/BID1/status-report': {
          last_modified: T,
          failed_jobs: [],
          successful_jobs: ['JID1', 'JID2'],
        },
      },
      deleted: ['/batches/BID1/lock (ephemeral)'],
    });
  });

  it('a held batch is deleted by an operator: nothing of it remains', async () => {
    let second = '';
    await step(async () => {
      second = (
        await createBatch(ctx, {
          profile_name: 'p',
          submitter: 's',
          payload_url: 'u',
          type: 'file',
          batchID: 'uuid-2',
        })
      ).bid;
      labels.set(second, 'BID2');
    });
    expect(await step(() => holdBatch(ctx, second))).toEqual({
      written: { '/batches/BID2/status': batchStatus('Held') },
      deleted: [],
    });
    expect(await step(() => deleteBatch(ctx, second))).toEqual({
      written: {},
      deleted: ['/batch-uuids/uuid-2', '/batches/BID2', '/batches/BID2/status', '/batches/BID2/submission'],
    });
  });

  it('cleanup removes the completed batch with its jobs, leaving only the queue folders', async () => {
    const later = queueContext(ctx.zk, () => new Date(NOW.getTime() + 8 * 24 * 3600 * 1000));
    const report = await cleanup(later, { retentionMs: 7 * 24 * 3600 * 1000 });
    expect(report.batches.map((b) => b.bid)).toEqual([bid]);
    const diff = parsed(diffTrees(tree, await snapshot(ctx.zk, labels)));
    expect(diff.written).toEqual({});
    const gone = ['/batches/BID1', `/batch-uuids/${UUID}`, ...[1, 2, 3].map((n) => `/jobs/JID${n}`)];
    for (const path of gone) expect(diff.deleted).toContain(path);
    const left = [...(await snapshot(ctx.zk, labels)).keys()];
    expect(left.filter((p) => /BID|JID/.test(p))).toEqual([]);
  });
});
