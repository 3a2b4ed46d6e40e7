import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps } from './api-fixture.js';

const chroot = useZkChroot();

const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 0 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404' },
];

type JobItem = { jid: string; bid: string; status: string; priority: number; lastModified: string };
type ListPage<T> = { items: T[]; total: number; next?: string };
type Rollup = {
  key: string;
  total: number;
  states: Record<string, number>;
  progress: { done: number; failed: number; inFlight: number; waiting: number; total: number };
  oldestWaiting?: { jid: string; state: string; since: string };
};

describe('sorted, cursor-paged lists and rollups (issue 21 item 3) over a real ZooKeeper', () => {
  let ctx: QueueContext;
  let app: FastifyInstance;
  let demo: { bid: string; jids: string[] };
  let other: { bid: string; jids: string[] };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // Priorities repeat so ties (broken by jid) cross page boundaries.
    demo = await expandedBatch(
      ctx,
      Array.from({ length: 14 }, (_, i) => objectSpec(i, {}, [3, 7, 5][i % 3])),
    );
    other = await expandedBatch(
      ctx,
      Array.from({ length: 5 }, (_, i) => objectSpec(i, { profile_name: 'other', collection: 'other' })),
      { profile_name: 'other', collection: 'other' },
    );
    for (const jid of demo.jids.slice(0, 3)) await driveJob(ctx, jid, TO_FAILED);
    for (const jid of demo.jids.slice(3, 5)) await driveJob(ctx, jid, [{ type: 'job.acquired' }]);
    await driveJob(ctx, other.jids[0]!, [{ type: 'job.acquired' }]);
    app = createHttpApi(await apiDeps(ctx));
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = async <T>(url: string): Promise<T> => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json<T>();
  };

  /** Every item of a list, following `next` a page of `limit` at a time. */
  async function walk<T>(path: string, limit: number): Promise<{ items: T[]; pages: number }> {
    const items: T[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const page = await get<ListPage<T>>(
        `${path}${sep}limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      );
      items.push(...page.items);
      pages += 1;
      if (!page.next) return { items, pages };
      expect(pages).toBeLessThan(100);
      after = page.next;
    }
  }

  const states = (): readonly string[] => ctx.lifecycle.states;
  const time = (text: string): number => Date.parse(text.replace(' ', 'T').replace(' +0000', 'Z'));
  const jobKey: Record<string, (j: JobItem) => number | string> = {
    created: (j) => j.jid,
    updated: (j) => time(j.lastModified),
    priority: (j) => j.priority,
    state: (j) => states().indexOf(j.status),
  };

  function expectSorted(items: JobItem[], key: (j: JobItem) => number | string, order: string): void {
    const sign = order === 'asc' ? 1 : -1;
    for (let i = 1; i < items.length; i += 1) {
      const [a, b] = [items[i - 1]!, items[i]!];
      const [ka, kb] = [key(a), key(b)];
      const cmp = ka === kb ? (a.jid < b.jid ? -1 : 1) : ka < kb ? -1 : 1;
      expect(sign * cmp, `${a.jid} before ${b.jid}`).toBeLessThan(0);
    }
  }

  for (const sort of ['created', 'updated', 'priority', 'state'])
    for (const order of ['asc', 'desc'])
      it(`GET /jobs?sort=${sort}&order=${order} pages by cursor through every job once, in order`, async () => {
        const all = [...demo.jids, ...other.jids].sort();
        const { items, pages } = await walk<JobItem>(`/jobs?sort=${sort}&order=${order}`, 4);
        expect(pages).toBe(Math.ceil(all.length / 4));
        expect(items.map((j) => j.jid).sort()).toEqual(all);
        expectSorted(items, jobKey[sort]!, order);
      });

  it("a batch's own jobs page and sort (GET /jobs?batch=), also within one state", async () => {
    const { items } = await walk<JobItem>(`/jobs?batch=${demo.bid}&sort=priority&order=desc`, 3);
    expect(items.map((j) => j.jid).sort()).toEqual([...demo.jids].sort());
    expect(items.every((j) => j.bid === demo.bid)).toBe(true);
    expectSorted(items, jobKey.priority!, 'desc');
    const pending = await walk<JobItem>(`/jobs?batch=${demo.bid}&state=pending&sort=created`, 2);
    expect(pending.items.map((j) => j.jid)).toEqual(demo.jids.slice(5).sort());
  });

  it('a cursor stays valid when the item it names moves: the next page goes on after its key', async () => {
    const first = await get<ListPage<JobItem>>(`/jobs?batch=${other.bid}&sort=created&limit=2`);
    expect(first.items.map((j) => j.jid)).toEqual(other.jids.slice(0, 2));
    await driveJob(ctx, other.jids[1]!, [{ type: 'job.acquired' }]);
    const second = await get<ListPage<JobItem>>(
      `/jobs?batch=${other.bid}&sort=created&limit=2&after=${first.next!}`,
    );
    expect(second.items.map((j) => j.jid)).toEqual(other.jids.slice(2, 4));
  });

  it('GET /batches sorts by created, updated and state, paged by cursor; each batch has its progress', async () => {
    for (const sort of ['created', 'updated', 'state'])
      for (const order of ['asc', 'desc']) {
        const { items } = await walk<{ bid: string }>(`/batches?sort=${sort}&order=${order}`, 1);
        expect(items.map((b) => b.bid).sort()).toEqual([demo.bid, other.bid].sort());
      }
    const created = await get<ListPage<{ bid: string }>>('/batches?sort=created&order=asc');
    expect(created.items.map((b) => b.bid)).toEqual([demo.bid, other.bid]);
    const list =
      await get<ListPage<{ bid: string; states: Record<string, number>; progress: Rollup['progress'] }>>(
        '/batches',
      );
    const shown = list.items.find((b) => b.bid === demo.bid)!;
    expect(shown.states).toEqual({ failed: 3, estimating: 2, pending: 9 });
    expect(shown.progress).toEqual({ done: 0, failed: 3, inFlight: 2, waiting: 9, total: 14 });
    const page = await get<{ progress: Rollup['progress']; jobs?: unknown }>(
      `/batches/${demo.bid}?jobs=none`,
    );
    expect(page.progress).toEqual(shown.progress);
    expect(page.jobs).toBeUndefined();
  });

  it('an unknown sort, a sort a list lacks, a foreign cursor and order without sort are 400 with the error body', async () => {
    const cases = [
      '/jobs?sort=size',
      '/jobs?sort=created&order=sideways',
      '/batches?sort=priority',
      '/jobs?order=desc',
    ];
    for (const url of cases) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      const body = res.json<{ error: string; message: string }>();
      expect(body.error, url).toBe('VALIDATION');
      expect(body.message, url).not.toBe('');
    }
    const page = await get<ListPage<JobItem>>('/jobs?sort=priority&limit=2');
    const foreign = await app.inject({ method: 'GET', url: `/jobs?sort=created&after=${page.next!}` });
    expect(foreign.statusCode).toBe(400);
    const refused = foreign.json<{ error: string; message: string }>();
    expect(refused.error).toBe('BAD_REQUEST');
    expect(refused.message).toContain('sort=priority');
    const unsorted = await app.inject({ method: 'GET', url: `/jobs?after=${page.next!}` });
    expect(unsorted.statusCode).toBe(400);
  });

  it('GET /rollups counts jobs by collection and profile and state, and follows jobs as they move', async () => {
    const byCollection = await get<{ groups: Rollup[]; categories: Record<string, string[]> }>(
      '/rollups?by=collection',
    );
    expect(byCollection.categories.failed).toEqual(['failed']);
    expect(byCollection.categories.done).toEqual(expect.arrayContaining(['completed']));
    const demoGroup = byCollection.groups.find((g) => g.key === 'demo')!;
    expect(demoGroup.states).toEqual({ failed: 3, estimating: 2, pending: 9 });
    expect(demoGroup.total).toBe(14);
    expect(demoGroup.oldestWaiting).toMatchObject({ state: 'pending' });
    expect(demo.jids.slice(5)).toContain(demoGroup.oldestWaiting!.jid);
    // The index is at most 2 s old: the job the cursor test moved shows once it is refreshed.
    const byProfile = await eventually(
      () => get<{ groups: Rollup[] }>('/rollups?by=profile'),
      (r) => r.groups.find((g) => g.key === 'other')?.states.estimating === 2,
    );
    expect(byProfile.groups.find((g) => g.key === 'other')!.states).toEqual({ estimating: 2, pending: 3 });
    expect(byProfile.groups.map((g) => g.total).reduce((a, b) => a + b)).toBe(19);

    for (const jid of demo.jids.slice(5, 7)) await driveJob(ctx, jid, TO_FAILED);
    const moved = await eventually(
      () => get<{ groups: Rollup[] }>('/rollups?by=collection'),
      (r) => r.groups.find((g) => g.key === 'demo')?.states.failed === 5,
    );
    expect(moved.groups.find((g) => g.key === 'demo')!.states).toEqual({
      failed: 5,
      estimating: 2,
      pending: 7,
    });
    const bad = await app.inject({ method: 'GET', url: '/rollups?by=color' });
    expect(bad.statusCode).toBe(400);
  });

  it('the OpenAPI document shows sort and order on the lists and the rollups route', async () => {
    const doc = await get<{ paths: Record<string, { get: { parameters?: { name: string }[] } }> }>(
      '/openapi.json',
    );
    const names = (path: string) => doc.paths[path]!.get.parameters?.map((p) => p.name) ?? [];
    for (const path of ['/jobs', '/batches'])
      expect(names(path)).toEqual(expect.arrayContaining(['sort', 'order']));
    expect(names('/rollups')).toContain('by');
  });
});
