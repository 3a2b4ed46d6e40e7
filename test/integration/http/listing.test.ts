import { beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { listBatches, listJobs, showItem } from '../../../src/views/listing/listing.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 0 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404' },
];

describe('the read model (listing.ts)', () => {
  let ctx: QueueContext;
  let other: QueueContext;
  const page = { offset: 0, limit: 100 };
  let first: { bid: string; jids: string[] };
  let second: { bid: string; jids: string[] };
  let pendingBid: string;
  let brokenBid: string;
  let brokenJid: string;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    first = await expandedBatch(
      ctx,
      [
        objectSpec(0, { collection: 'c1' }, 7),
        objectSpec(1, { collection: 'c1' }, 3),
        objectSpec(2, { collection: 'c2' }),
      ],
      { profile_name: 'alpha', submitter: 'ann', batchID: 'uuid-first' },
    );
    second = await expandedBatch(ctx, [objectSpec(0, { collection: 'c2' })], {
      profile_name: 'beta',
      submitter: 'bob',
    });
    await driveJob(ctx, first.jids[2]!, TO_FAILED);
    pendingBid = (
      await createBatch(ctx, { profile_name: 'alpha', submitter: 'bob', payload_url: 'sim:1', type: 'file' })
    ).bid;
    brokenBid = (
      await createBatch(ctx, { profile_name: 'alpha', submitter: 'ann', payload_url: 'sim:1', type: 'file' })
    ).bid;
    await ctx.zk.setData(`/batches/${brokenBid}/status`, '{"status": "Proc');
    brokenJid = second.jids[0]!;
    await ctx.zk.setData(`/jobs/${brokenJid}/status`, JSON.stringify({ status: 'Bogus' }));
    await tryLock(other, `/jobs/${first.jids[0]!}`);
  });

  it('lists batches newest first with counts per folder; an unreadable batch is listed as invalid', async () => {
    const { items, total } = await listBatches(ctx, {}, page);
    expect(total).toBe(4);
    expect(items.map((b) => b.bid)).toEqual([brokenBid, pendingBid, second.bid, first.bid]);
    expect(items[0]).toMatchObject({
      status: 'invalid',
      message: expect.stringContaining('not valid JSON') as unknown,
    });
    const firstSummary = items[3]!;
    expect(firstSummary).toMatchObject({
      bid: first.bid,
      uuid: 'uuid-first',
      status: 'processing',
      profile: 'alpha',
      submitter: 'ann',
      jobCount: 3,
      counts: { processing: 2, completed: 0, failed: 1, deleted: 0 },
    });
    expect(items[1]).toMatchObject({
      status: 'pending',
      counts: { processing: 0, completed: 0, failed: 0, deleted: 0 },
    });
    expect(items[1]!.jobCount).toBeUndefined();
  });

  it('filters batches by status, profile and submitter, and pages through the matches', async () => {
    const byProfile = await listBatches(ctx, { profile: 'alpha' }, page);
    expect(byProfile.items.map((b) => b.bid)).toEqual([pendingBid, first.bid]);
    expect((await listBatches(ctx, { status: 'pending' }, page)).items.map((b) => b.bid)).toEqual([
      pendingBid,
    ]);
    expect(
      (await listBatches(ctx, { submitter: 'bob', status: 'processing' }, page)).items.map((b) => b.bid),
    ).toEqual([second.bid]);
    expect((await listBatches(ctx, { status: 'invalid' }, page)).items.map((b) => b.bid)).toEqual([
      brokenBid,
    ]);
    const paged = await listBatches(ctx, {}, { offset: 1, limit: 2 });
    expect(paged).toMatchObject({ total: 4 });
    expect(paged.items.map((b) => b.bid)).toEqual([pendingBid, second.bid]);
    const pagedFiltered = await listBatches(ctx, { profile: 'alpha' }, { offset: 1, limit: 5 });
    expect(pagedFiltered.total).toBe(2);
    expect(pagedFiltered.items.map((b) => b.bid)).toEqual([first.bid]);
  });

  it('lists a state folder in priority order, marks locked jobs, and keeps unreadable jobs as invalid', async () => {
    const pending = await listJobs(ctx, { state: 'pending' }, page);
    // first.jids[1] has priority 3, first.jids[0] priority 7; the broken job's ref is still in pending.
    expect(pending.items.map((j) => j.jid)).toEqual([first.jids[1], brokenJid, first.jids[0]]);
    expect(pending.items[2]).toMatchObject({ locked: true, priority: 7, bid: first.bid, status: 'pending' });
    expect(pending.items[0]!.locked).toBe(false);
    expect(pending.items[1]).toMatchObject({
      status: 'invalid',
      bid: second.bid,
      message: expect.stringContaining('unknown job status') as unknown,
    });
    const failed = await listJobs(ctx, { state: 'failed' }, page);
    expect(failed.items).toEqual([
      expect.objectContaining({
        jid: first.jids[2],
        status: 'failed',
        message: 'HTTP 404',
        lastSuccessfulStatus: 'provisioning',
      }) as unknown,
    ]);
  });

  it('filters jobs by batch and collection, newest first without a state', async () => {
    const all = await listJobs(ctx, {}, page);
    expect(all.items.map((j) => j.jid)).toEqual([brokenJid, ...[...first.jids].reverse()]);
    const ofFirst = await listJobs(ctx, { batch: first.bid }, page);
    expect(ofFirst.items.map((j) => j.jid)).toEqual([...first.jids].reverse());
    const pendingOfFirst = await listJobs(ctx, { batch: first.bid, state: 'pending' }, page);
    expect(pendingOfFirst.items.map((j) => j.jid)).toEqual([first.jids[1], first.jids[0]]);
    const c1 = await listJobs(ctx, { collection: 'c1' }, { offset: 1, limit: 10 });
    expect(c1).toMatchObject({ total: 2 });
    expect(c1.items.map((j) => j.jid)).toEqual([first.jids[0]]);
    await expect(listJobs(ctx, { batch: 'bid9999999999' }, page)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('shows a batch by bid or uuid with its jobs by folder, a job with its lock owner, and NOT_FOUND otherwise', async () => {
    const byUuid = await showItem(ctx, 'uuid-first');
    expect(byUuid).toMatchObject({ kind: 'batch', batch: { batchId: first.bid, status: 'processing' } });
    expect(byUuid.kind === 'batch' && byUuid.jobs).toEqual(
      expect.arrayContaining([
        { folder: 'batch-failed', jid: first.jids[2] },
        { folder: 'batch-processing', jid: first.jids[0] },
      ]) as unknown,
    );
    expect(await showItem(ctx, first.bid)).toMatchObject({ kind: 'batch', batch: { batchId: first.bid } });
    const locked = await showItem(ctx, first.jids[0]!);
    expect(locked).toMatchObject({
      kind: 'job',
      job: { jobId: first.jids[0] },
      lockOwner: other.zk.sessionId,
    });
    expect(await showItem(ctx, first.jids[1]!)).not.toHaveProperty('lockOwner');
    await expect(showItem(ctx, 'no-such-uuid')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(showItem(ctx, 'jid9999999999')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(showItem(ctx, '../etc')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(showItem(ctx, brokenBid)).rejects.toMatchObject({ code: 'ITEM_INVALID' });
  });
});
