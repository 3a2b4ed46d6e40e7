import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../../src/http/index.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from './api-fixture.js';

const chroot = useZkChroot();
const auth = { authorization: `Bearer ${TOKEN}` };
const submission = {
  profile: 'demo',
  submitter: 'ann',
  payloadUrl: 'https://example.org/a.txt',
  type: 'file',
};

describe('API routes over a real ZooKeeper (inject)', () => {
  let ctx: QueueContext;
  let app: FastifyInstance;
  let ready = true;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    app = createHttpApi(await apiDeps(ctx, { ready: () => ready }));
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (url: string, payload?: object) => app.inject({ method: 'POST', url, headers: auth, payload });
  const get = (url: string) => app.inject({ method: 'GET', url });

  it('submits a batch (201, Location), returns the same batch for a known uuid (200), and shows it by bid and uuid', async () => {
    const first = await post('/batches', { ...submission, uuid: 'u-routes-1', erc_what: 'A title' });
    expect(first.statusCode).toBe(201);
    const { bid, uuid, created } = first.json<{ bid: string; uuid: string; created: boolean }>();
    expect({ uuid, created }).toEqual({ uuid: 'u-routes-1', created: true });
    expect(first.headers.location).toBe(`/batches/${bid}`);
    const again = await post('/batches', { ...submission, uuid: 'u-routes-1', erc_what: 'A title' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ bid, uuid: 'u-routes-1', created: false });
    const stored = await loadBatch(ctx, bid);
    expect(stored.status).toBe('pending');
    expect(stored.submission).toMatchObject({
      ...{ profile_name: 'demo', submitter: 'ann', payload_url: submission.payloadUrl, type: 'file' },
      ...{ collection: 'demo', batchID: 'u-routes-1', erc_what: 'A title', submission_mode: 'add' },
    });
    for (const id of [bid, 'u-routes-1']) {
      const shown = await get(`/batches/${id}`);
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).toMatchObject({
        kind: 'batch',
        batch: { batchId: bid, status: 'pending' },
        jobs: [],
      });
    }
    const listed = await get('/batches?status=pending&profile=demo');
    expect(listed.json<{ items: { bid: string }[] }>().items.map((b) => b.bid)).toContain(bid);
  });

  it('pages batches by cursor: following `next` as `after` lists every batch once, newest first', async () => {
    for (const n of [1, 2, 3, 4, 5]) await post('/batches', { ...submission, uuid: `u-cursor-${n}` });
    const all = (await get('/batches?limit=500')).json<{ items: { bid: string }[]; total: number }>();
    const walked: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const res = await get(`/batches?limit=2${after ? `&after=${after}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json<{ items: { bid: string }[]; total: number; next?: string }>();
      expect(page.total).toBe(all.total);
      walked.push(...page.items.map((b) => b.bid));
      if (!page.next) break;
      expect(page.next).toBe(page.items.at(-1)!.bid);
      after = page.next;
    }
    expect(all.total).toBeGreaterThanOrEqual(5);
    expect(walked).toEqual(all.items.map((b) => b.bid));
    expect((await get('/batches?after=not-a-bid')).statusCode).toBe(400);
  });

  it('refuses an unknown profile and a digest of the wrong length with 400 naming them', async () => {
    const unknown = await post('/batches', { ...submission, profile: 'nosuch' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      error: 'PROFILE_UNKNOWN',
      message: expect.stringContaining('"nosuch"') as unknown,
    });
    const digest = await post('/batches', {
      ...submission,
      digest_type: 'md5',
      digest_value: 'ab'.repeat(20),
    });
    expect(digest.statusCode).toBe(400);
    expect(digest.json()).toMatchObject({
      field: 'body.digest_value',
      message: expect.stringContaining('md5') as unknown,
    });
  });

  it('answers 404 for unknown ids, on reads and on actions', async () => {
    for (const url of ['/batches/bid9999999999', '/batches/no-such-uuid', '/jobs/jid9999999999']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ error: 'NOT_FOUND' });
    }
    expect((await post('/jobs/jid9999999999/hold')).statusCode).toBe(404);
    expect((await post('/batches/bid9999999999/release')).statusCode).toBe(404);
    expect((await get('/jobs?batch=bid9999999999')).statusCode).toBe(404);
  });

  it('maps refusals: 409 naming state and action, 409 for a held lock, 400 to force without a reason, 422 for unreadable data', async () => {
    const { bid, jids } = await expandedBatch(ctx, [objectSpec(0), objectSpec(1), objectSpec(2)]);
    const refused = await post(`/jobs/${jids[0]}/release`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: 'INVALID_TRANSITION' });
    expect(refused.json<{ message: string }>().message).toMatch(
      /cannot release job: .*admin\.release.*state pending/,
    );
    const batchRefused = await post(`/batches/${bid}/update-report`);
    expect(batchRefused.statusCode).toBe(409);
    expect(batchRefused.json<{ message: string }>().message).toMatch(
      /cannot update-report batch: .*state processing/,
    );

    const worker = queueContext(await chroot.connect());
    expect((await tryLock(worker, `/jobs/${jids[1]}`)).held).toBe(true);
    const locked = await post(`/jobs/${jids[1]}/hold`);
    expect(locked.statusCode).toBe(409);
    expect(locked.json()).toMatchObject({
      error: 'LOCK_HELD',
      message: expect.stringContaining(worker.zk.sessionId) as unknown,
    });
    const noReason = await post(`/jobs/${jids[1]}/hold`, { force: true });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json()).toMatchObject({ error: 'BAD_REQUEST' });
    const forced = await post(`/jobs/${jids[1]}/hold`, { force: true, reason: 'worker is gone' });
    expect(forced.statusCode).toBe(200);
    expect(forced.json()).toMatchObject({ job: { jobId: jids[1], status: 'held' } });

    await ctx.zk.setData(`/jobs/${jids[2]}/status`, 'not json');
    const invalid = await get(`/jobs/${jids[2]}`);
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({
      error: 'ITEM_INVALID',
      message: expect.stringContaining('not valid JSON') as unknown,
    });
  });

  it('requires the bearer token on every mutating route (401 with WWW-Authenticate) but not on reads', async () => {
    const missing = await app.inject({ method: 'POST', url: '/queues/ingest/pause' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await app.inject({
      method: 'POST',
      url: '/batches',
      headers: { authorization: 'Bearer wrong' },
      payload: { nonsense: true },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toContain('invalid_token');
    expect((await get('/batches')).statusCode).toBe(200);
    expect(await ctx.zk.exists('/locks/queue/ingest')).toBeUndefined();
  });

  it('refuses every mutating route with 403 naming MRTQ_API_TOKEN when no token is configured', async () => {
    const open = createHttpApi(await apiDeps(ctx, { token: undefined }));
    try {
      const res = await open.inject({ method: 'POST', url: '/batches', headers: auth, payload: submission });
      expect(res.statusCode).toBe(403);
      expect(res.json<{ message: string }>().message).toContain('MRTQ_API_TOKEN');
      expect((await open.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('answers /readyz 503 with the reason when not ready', async () => {
    expect((await get('/readyz')).statusCode).toBe(200);
    ready = false;
    try {
      const res = await get('/readyz');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        error: 'NOT_READY',
        message: expect.stringContaining('consumers') as unknown,
      });
    } finally {
      ready = true;
    }
  });

  it('walks a job to completed and shows it with its identifiers', async () => {
    const { jids } = await expandedBatch(ctx, [objectSpec(0)]);
    await driveJob(ctx, jids[0]!, [{ type: 'job.acquired' }]);
    const res = await get(`/jobs/${jids[0]}`);
    expect(res.json()).toMatchObject({ kind: 'job', job: { jobId: jids[0], status: 'estimating' } });
    const list = await get(`/jobs?state=estimating`);
    expect(list.json()).toMatchObject({
      total: 1,
      items: [{ jid: jids[0], status: 'estimating', locked: false }],
    });
  });
});
