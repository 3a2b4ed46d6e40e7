import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { registerEngine, type EngineRegistration } from '../../../src/queue/tree/engines.js';
import { tryLock } from '../../../src/queue/locks/lock.js';
import { jobPath } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, client } from '../http/api-fixture.js';

const chroot = useZkChroot();
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const BATCH_TRACE = 'aaf92f3577b34da6a3ce929d0e0e4736';
const JAEGER = 'http://jaeger.example:16686';

type Item = Record<string, unknown> & { allowedActions: string[] };

describe('what the API adds for the dashboard (a real server over a real ZooKeeper)', () => {
  let ctx: QueueContext;
  let api: RunningHttpApi;
  let http: ReturnType<typeof client>;
  let registration: EngineRegistration;
  let bid: string;
  let jids: string[];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    ({ bid, jids } = await expandedBatch(
      ctx,
      [objectSpec(0, { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` }), objectSpec(1), objectSpec(2)],
      { traceparent: `00-${BATCH_TRACE}-00f067aa0ba902b7-01` },
    ));
    registration = await registerEngine(ctx, {
      host: 'test-host',
      pid: 4242,
      version: '0.1.0',
      states: ['downloading'],
      batchWork: [],
      startedAt: new Date().toISOString(),
    });
    api = await startHttpApi(await apiDeps(ctx, { jaegerUrl: JAEGER }), { port: 0 });
    http = client(api.url);
  });
  afterAll(async () => {
    await api?.close();
    await registration?.close();
  });

  it('lists the registered engine processes, and names the engine whose session holds a job lock', async () => {
    const engines = await http.get<{ items: Record<string, unknown>[] }>('/engines');
    expect(engines.body.items).toEqual([
      expect.objectContaining({
        id: registration.id,
        host: 'test-host',
        pid: 4242,
        sessionId: ctx.zk.sessionId,
      }),
    ]);
    const jid = jids[2]!;
    const lock = await tryLock(ctx, jobPath(jid));
    expect(lock.held).toBe(true);
    const shown = await http.get<Item & { lock: { sessionId: string; engine?: { id: string } } }>(
      `/jobs/${jid}`,
    );
    expect(shown.body.lock).toMatchObject({ sessionId: ctx.zk.sessionId, engine: { id: registration.id } });
    await ctx.zk.delete(`${jobPath(jid)}/lock`);
    expect((await http.get<Item>(`/jobs/${jid}`)).body.lock).toBeUndefined();
  });

  it('answers a job and a batch with the actions their lifecycle allows now', async () => {
    const jid = jids[1]!;
    expect((await http.get<Item>(`/jobs/${jid}`)).body.allowedActions).toEqual(['hold', 'fail']);
    expect((await http.post(`/jobs/${jid}/hold`)).status).toBe(200);
    expect((await http.get<Item>(`/jobs/${jid}`)).body.allowedActions).toEqual(['release', 'delete']);
    expect((await http.get<Item>(`/batches/${bid}`)).body.allowedActions).toEqual([]);
    // What is not offered is what the API refuses.
    expect((await http.post(`/batches/${bid}/update-report`)).status).toBe(409);
  });

  it('links a job and a batch to their stored trace in Jaeger', async () => {
    expect((await http.get(`/jobs/${jids[0]}`)).body.trace).toEqual({
      traceId: TRACE,
      url: `${JAEGER}/trace/${TRACE}`,
    });
    expect((await http.get(`/batches/${bid}`)).body.trace).toEqual({
      traceId: BATCH_TRACE,
      url: `${JAEGER}/trace/${BATCH_TRACE}`,
    });
  });

  it("derives a batch's timeline from its stored timestamps", async () => {
    const res = await http.get<{ entries: { item: string; id: string; what: string }[]; note: string }>(
      `/batches/${bid}/timeline`,
    );
    expect(res.status).toBe(200);
    const seen = res.body.entries.map((e) => `${e.item} ${e.id} ${e.what}`);
    expect(seen).toEqual(
      expect.arrayContaining([...jids.map((jid) => `job ${jid} status`), `batch ${bid} status`]),
    );
    expect(res.body.note).toMatch(/Earlier transitions are not stored/);
  });

  it('counts the queue for the overview and on the lifecycle diagrams', async () => {
    const overview = await http.get<{
      jobs: Record<string, number>;
      batches: Record<string, number>;
      queues: { name: string; paused: boolean }[];
      session: string;
      engines: unknown[];
    }>('/overview');
    expect(overview.body).toMatchObject({
      session: 'connected',
      jobs: { pending: 2, held: 1 },
      batches: { processing: 1 },
    });
    expect(overview.body.queues).toContainEqual({ name: 'ingest', paused: false });
    expect(overview.body.engines).toHaveLength(1);
    const diagram = await fetch(`${api.url}/machines/job/diagram`);
    expect(diagram.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const svg = await diagram.text();
    expect(svg).toContain('data-count-for="pending">2</text>');
    expect(svg).toContain('data-count-for="held">1</text>');
    expect((await fetch(`${api.url}/machines/nothing/diagram`)).status).toBe(400);
  });

  it('serves the dashboard with a strict content security policy, and no other file', async () => {
    const page = await fetch(`${api.url}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/ui/app.js"></script>');
    expect((await fetch(`${api.url}/ui/app.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    for (const path of ['/ui/nope.js', '/ui/..%2Fpackage.json', '/ui/%2e%2e%2fapp.js'])
      expect((await fetch(`${api.url}${path}`)).status, path).toBe(404);
    const root = await fetch(`${api.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/ui');
  });

  it('documents the new routes in the OpenAPI document', async () => {
    const doc = await http.get<{ paths: Record<string, unknown> }>('/openapi.json');
    for (const path of ['/overview', '/engines', '/machines/{lifecycle}/diagram', '/batches/{id}/timeline'])
      expect(doc.body.paths, path).toHaveProperty([path]);
  });
});
