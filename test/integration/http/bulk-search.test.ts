import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createHttpApi } from '../../../src/http/index.js';
import type { BulkReport } from '../../../src/admin/bulk/outcome.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { JobIndex } from '../../../src/views/job-index/job-index.js';
import { searchQueue, type SearchResult } from '../../../src/views/search/search.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from './api-fixture.js';

const chroot = useZkChroot();
const auth = { authorization: `Bearer ${TOKEN}` };

/** pending → failed in downloading: its last success is provisioning, so a requeue resumes at downloading. */
const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 0 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404' },
];

/** Every job's status node (content and version) and every batch status: what a dry run must not touch. */
async function snapshot(ctx: QueueContext): Promise<string> {
  const parts: string[] = [];
  for (const jid of (await ctx.zk.getChildren('/jobs')).filter((n) => n.startsWith('jid')).sort()) {
    const { data, stat } = await ctx.zk.getData(`/jobs/${jid}/status`);
    parts.push(`${jid} ${stat.version} ${data?.toString() ?? ''}`);
  }
  for (const bid of (await ctx.zk.getChildren('/batches')).sort()) {
    const { data, stat } = await ctx.zk.getData(`/batches/${bid}/status`);
    parts.push(`${bid} ${stat.version} ${data?.toString() ?? ''}`);
  }
  for (const state of ['failed', 'downloading', 'pending', 'held', 'deleted'])
    parts.push(`${state}: ${(await ctx.zk.getChildren(`/jobs/states/${state}`)).sort().join(',')}`);
  return parts.join('\n');
}

describe('bulk actions through the API (POST /jobs/bulk/:action), on a real ZooKeeper', () => {
  let ctx: QueueContext;
  let other: QueueContext;
  let app: FastifyInstance;
  let batch: { bid: string; jids: string[] };
  let elsewhere: { bid: string; jids: string[] };

  const bulk = (action: string, body: object, headers: Record<string, string> = auth) =>
    app.inject({ method: 'POST', url: `/jobs/bulk/${action}`, headers, payload: body });

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    app = createHttpApi(await apiDeps(ctx));
    // jids[0], [1]: failed, requeueable; [2]: failed after a requeue by Merritt's Java library,
    // whose last success ("Failed") no requeue edge accepts; [3]: failed, locked by another
    // session; [4]: pending.
    batch = await expandedBatch(
      ctx,
      [0, 1, 2, 3, 4].map((i) => objectSpec(i, { collection: 'coll-a' })),
    );
    elsewhere = await expandedBatch(ctx, [objectSpec(0, { collection: 'coll-b' })]);
    for (const jid of [...batch.jids.slice(0, 4), elsewhere.jids[0]!]) await driveJob(ctx, jid, TO_FAILED);
    const statusPath = `/jobs/${batch.jids[2]!}/status`;
    const status = JSON.parse((await ctx.zk.getData(statusPath)).data!.toString()) as Record<string, unknown>;
    await ctx.zk.setData(statusPath, JSON.stringify({ ...status, last_successful_status: 'Failed' }));
    expect((await tryLock(other, `/jobs/${batch.jids[3]!}`)).held).toBe(true);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a dry run (the default) reports what each failed job of the batch would do and touches nothing', async () => {
    const before = await snapshot(ctx);
    const answer = await bulk('requeue', { batch: batch.bid });
    expect(answer.statusCode).toBe(200);
    const report = answer.json<BulkReport>();
    expect(report).toMatchObject({ action: 'requeue', dryRun: true, states: ['failed'], truncated: false });
    expect(report.counts).toEqual({ matched: 4, would: 3, done: 0, refused: 1, unreadable: 0 });
    expect(report.items[0]).toMatchObject({
      jid: batch.jids[2],
      outcome: 'refused',
      error: 'INVALID_TRANSITION',
      message: expect.stringContaining('admin.requeue') as unknown,
    });
    expect(report.items.slice(1)).toEqual(
      [0, 1, 3].map((i) => ({
        jid: batch.jids[i],
        bid: batch.bid,
        from: 'failed',
        outcome: 'would',
        to: 'downloading',
      })),
    );
    expect(await snapshot(ctx)).toBe(before);
  });

  it('needs the token, a filter, a known state and an existing batch', async () => {
    expect((await bulk('requeue', { batch: batch.bid }, {})).statusCode).toBe(401);
    expect((await bulk('requeue', {})).json()).toMatchObject({ error: 'BAD_REQUEST' });
    expect((await bulk('requeue', { state: 'scanning' })).json()).toMatchObject({
      error: 'VALIDATION',
      field: 'body.state',
    });
    expect((await bulk('explode', { batch: batch.bid })).statusCode).toBe(400);
    expect((await bulk('requeue', { batch: 'bid9999999999' })).statusCode).toBe(404);
  });

  it("a run requeues only the batch's failed jobs the lifecycle allows, and reports the others with why", async () => {
    const answer = await bulk('requeue', { batch: batch.bid, dryRun: false });
    expect(answer.statusCode).toBe(200);
    const report = answer.json<BulkReport>();
    expect(report.counts).toEqual({ matched: 4, would: 0, done: 2, refused: 2, unreadable: 0 });
    expect(report.refusedBy).toEqual({ INVALID_TRANSITION: 1, LOCK_HELD: 1 });
    const byJid = new Map(report.items.map((item) => [item.jid, item]));
    expect(byJid.get(batch.jids[2]!)).toMatchObject({
      outcome: 'refused',
      error: 'INVALID_TRANSITION',
      message: expect.stringContaining('not allowed') as unknown,
    });
    expect(byJid.get(batch.jids[3]!)).toMatchObject({ outcome: 'refused', error: 'LOCK_HELD' });
    for (const i of [0, 1]) {
      expect(byJid.get(batch.jids[i]!)).toMatchObject({ outcome: 'done', from: 'failed', to: 'downloading' });
      expect(await loadJob(ctx, batch.jids[i]!)).toMatchObject({ status: 'downloading', retryCount: 1 });
    }
    expect((await loadJob(ctx, batch.jids[2]!)).status).toBe('failed');
    expect((await loadJob(ctx, batch.jids[3]!)).status).toBe('failed');
    expect((await loadJob(ctx, batch.jids[4]!)).status).toBe('pending');
    // Another batch's failed job is not touched.
    expect((await loadJob(ctx, elsewhere.jids[0]!)).status).toBe('failed');
    expect((await loadBatch(ctx, batch.bid)).status).toBe('processing');
    // Nothing left to requeue but the two refused: the same call again touches nothing new.
    const again = (await bulk('requeue', { batch: batch.bid, dryRun: false })).json<BulkReport>();
    expect(again.counts).toMatchObject({ matched: 2, done: 0, refused: 2 });
  });

  it('a filter state the action does not apply to lists each job refused by the lifecycle', async () => {
    const report = (
      await bulk('release', { batch: batch.bid, state: 'pending', dryRun: false })
    ).json<BulkReport>();
    expect(report.counts).toMatchObject({ matched: 1, done: 0, refused: 1 });
    expect(report.items[0]).toMatchObject({
      jid: batch.jids[4],
      from: 'pending',
      error: 'INVALID_TRANSITION',
      message: expect.stringContaining('admin.release') as unknown,
    });
    expect((await loadJob(ctx, batch.jids[4]!)).status).toBe('pending');
  });

  it('holds, releases and deletes by collection across batches, found through the state folders', async () => {
    const held = (await bulk('hold', { collection: 'coll-a', dryRun: false })).json<BulkReport>();
    expect(held.items).toEqual([
      { jid: batch.jids[4], bid: batch.bid, from: 'pending', outcome: 'done', to: 'held' },
    ]);
    const released = (await bulk('release', { collection: 'coll-a', dryRun: false })).json<BulkReport>();
    expect(released.counts).toMatchObject({ matched: 1, done: 1 });
    const dry = (await bulk('delete', { collection: 'coll-b' })).json<BulkReport>();
    expect(dry.items).toEqual([
      { jid: elsewhere.jids[0], bid: elsewhere.bid, from: 'failed', outcome: 'would', to: 'deleted' },
    ]);
    const deleted = (
      await bulk('delete', { collection: 'coll-b', dryRun: false, reason: 'withdrawn' })
    ).json<BulkReport>();
    expect(deleted.counts).toMatchObject({ matched: 1, done: 1, refused: 0 });
    expect((await loadJob(ctx, elsewhere.jids[0]!)).status).toBe('deleted');
    expect(await ctx.zk.getChildren(`/batches/${elsewhere.bid}/states/batch-deleted`)).toEqual([
      elsewhere.jids[0],
    ]);
  });

  it('is in the OpenAPI document, with its body schema and the token requirement', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { security?: unknown; requestBody?: unknown }>>;
    }>();
    const op = doc.paths['/jobs/bulk/{action}']?.post;
    expect(op?.security).toEqual([{ bearer: [] }]);
    expect(JSON.stringify(op?.requestBody)).toContain('dryRun');
    expect(doc.paths['/search']?.get).toBeDefined();
  });
});

describe('search (GET /search), on a real ZooKeeper', () => {
  let ctx: QueueContext;
  let app: FastifyInstance;
  let batch: { bid: string; jids: string[] };

  const search = async (q: string, extra = ''): Promise<SearchResult> => {
    const answer = await app.inject({ method: 'GET', url: `/search?q=${encodeURIComponent(q)}${extra}` });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json<SearchResult>();
  };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    app = createHttpApi(await apiDeps(ctx));
    batch = await expandedBatch(ctx, [], { batchID: 'uuid-search-1', erc_what: 'Moby Dick collection' });
    await createJobs(ctx, batch.bid, [
      {
        ...objectSpec(0, { local_id: 'LOC-77; LOC-78' }),
        identifiers: { primary_id: 'ark:/13030/m5search1', local_id: ['OTHER-1'] },
        metadata: { erc_what: 'Moby Dick, chapter one' },
      },
      { ...objectSpec(1), metadata: { erc_what: 'LOC-77 and its neighbours' } },
    ]);
    batch.jids = (await ctx.zk.getChildren(`/batches/${batch.bid}/states/batch-processing`)).sort();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('finds a job or batch by each key kind, naming what matched', async () => {
    const [first, second] = batch.jids as [string, string];
    expect((await search(first)).items).toEqual([
      { kind: 'job', id: first, bid: batch.bid, match: 'jid', value: first, status: 'pending' },
    ]);
    expect((await search(batch.bid)).items).toMatchObject([{ kind: 'batch', id: batch.bid, match: 'bid' }]);
    expect((await search('uuid-search-1')).items).toMatchObject([
      { kind: 'batch', id: batch.bid, match: 'uuid', title: 'Moby Dick collection', status: 'processing' },
    ]);
    expect((await search('ark:/13030/m5search1')).items).toMatchObject([
      { kind: 'job', id: first, match: 'ark', title: 'Moby Dick, chapter one' },
    ]);
    expect((await search('OTHER-1')).items).toMatchObject([{ id: first, match: 'localId' }]);
    expect((await search('LOC-78')).items).toMatchObject([{ id: first, match: 'localId' }]);
    // An exact local id ranks above a title that starts with the same text.
    expect((await search('LOC-77')).items.map((hit) => `${hit.id}:${hit.match}`)).toEqual([
      `${first}:localId`,
      `${second}:title`,
    ]);
    // A title prefix, any case: the batch first, then its job.
    const moby = await search('moby dick');
    expect(moby.items.map((hit) => `${hit.kind}:${hit.match}`)).toEqual(['batch:title', 'job:title']);
    // Both describes share this file's chroot: the index holds the other describe's items too.
    expect(moby.index).toMatchObject({ jobs: 8, batches: 3, refreshedAt: expect.any(String) as unknown });
    const capped = await search('moby', '&limit=1');
    expect(capped).toMatchObject({ total: 2, truncated: true });
    expect(capped.items).toHaveLength(1);
    expect((await search('jid9999999999')).items).toEqual([]);
    expect((await search('nothing like it')).total).toBe(0);
  });

  it('refuses an empty query (400)', async () => {
    const answer = await app.inject({ method: 'GET', url: '/search?q=%20' });
    expect(answer.statusCode).toBe(400);
  });

  it('the index sees jobs added later, and an ARK written with a later transition', async () => {
    const index = new JobIndex(ctx, 0);
    const more = await expandedBatch(ctx, [objectSpec(0, { local_id: 'LATE-1' })]);
    expect((await searchQueue(ctx, index, 'LATE-1')).items).toMatchObject([
      { id: more.jids[0], match: 'localId' },
    ]);
    const jid = more.jids[0]!;
    expect((await searchQueue(ctx, index, 'ark:/13030/m5late')).total).toBe(0);
    // The ARK arrives as processing writes it: with a transition (the index re-reads a job that moved).
    await ctx.zk.create(
      `/jobs/${jid}/identifiers`,
      JSON.stringify({ primary_id: 'ark:/13030/m5late', local_id: [] }),
    );
    await driveJob(ctx, jid, [{ type: 'job.acquired' }]);
    expect((await searchQueue(ctx, index, 'ark:/13030/m5late')).items).toMatchObject([
      { id: jid, match: 'ark', status: 'estimating' },
    ]);
    expect(index.stats().lastRead).toBe(1);
  });
});
