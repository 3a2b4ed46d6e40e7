import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchStates, jobStates } from '../../../machines/index.js';
import { Engine } from '../../../src/engine/engine.js';
import { noLedger } from '../../../src/engine/ledger.js';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import { submitBody } from '../../../src/http/schemas.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, client } from './api-fixture.js';
import { parsePrometheus } from './prometheus-parse.js';
import { malformedSubmissions, SUBMIT } from './submit-cases.js';
import { openEvents, type SseConnection } from './sse-client.js';

const chroot = useZkChroot();

type Summary = { bid: string; status: string; jid?: string };
type Page<T> = { items: T[]; total: number };

describe('the API end to end: a real listening server and a real engine (simulated steps)', () => {
  let ctx: QueueContext;
  let engine: Engine;
  let api: RunningHttpApi;
  let http: ReturnType<typeof client>;
  let events: SseConnection;
  let started = false;
  let submittedByApi = 0;

  const waitBatch = (bid: string, status: string, ms = 30_000) =>
    eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === status,
      ms,
    );
  const submit = async (body: Record<string, unknown>) => {
    const res = await http.post<{ bid: string; created: boolean }>('/batches', body);
    expect(res.status, res.text).toBe(201);
    submittedByApi += 1;
    return res.body.bid;
  };
  const jobsOf = async (bid: string) =>
    (await http.get<Page<Summary & { jid: string }>>(`/jobs?batch=${bid}`)).body.items;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    const log = pino({ level: 'silent' });
    engine = new Engine(
      { queue: ctx, ...createSimulatedSteps({ stepDelayMs: 5 }), ledger: noLedger, log },
      { sweepIntervalMs: 0, provisioningIntervalMs: 3_600_000 },
    );
    await engine.start();
    started = true;
    api = await startHttpApi(await apiDeps(ctx, { engine, ready: () => started && ctx.zk.isConnected }), {
      port: 0,
    });
    http = client(api.url);
    events = await openEvents(api.url);
    await events.next((e) => e.event === 'ready');
  });
  afterAll(async () => {
    // The event stream is still open: close() must end it rather than wait for it.
    await api?.close();
    events?.close();
    await engine?.stop(1000);
  });

  it('is ready and healthy, listening on 127.0.0.1', async () => {
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await http.get('/healthz')).status).toBe(200);
    expect((await http.get('/readyz')).body).toMatchObject({ status: 'ready', session: 'connected' });
  });

  it('runs a batch submitted through the API to completed, and /events sees every job complete', async () => {
    const bid = await submit(SUBMIT);
    await waitBatch(bid, 'completed');
    const jobs = await jobsOf(bid);
    expect(jobs).toHaveLength(3);
    expect(jobs.every((j) => j.status === 'completed')).toBe(true);
    const shown = await http.get<{ batch: { status: string }; report: { successful_jobs: string[] } }>(
      `/batches/${bid}`,
    );
    expect(shown.body.report.successful_jobs).toHaveLength(3);
    for (const job of jobs) {
      await events.next(
        (e) =>
          (e.data as { id?: string; to?: string }).id === job.jid &&
          (e.data as { to?: string }).to === 'completed',
      );
    }
    await events.next(
      (e) =>
        (e.data as { id?: string; to?: string }).id === bid && (e.data as { to?: string }).to === 'completed',
    );
  });

  it('refuses a submission without the token (401) and queues nothing', async () => {
    const before = (await http.get<Page<Summary>>('/batches')).body.total;
    const res = await http.postWithout('/batches', SUBMIT);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await http.get<Page<Summary>>('/batches')).body.total).toBe(before);
  });

  describe('refuses a malformed submission with 400 naming the field', () => {
    it.each(malformedSubmissions())('%s: %s', async (field, _what, body) => {
      const res = await http.post<{ error: string; field: string; message: string }>('/batches', body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.field).toBe(`body.${field}`);
      expect(res.body.message).toContain(`body.${field}`);
    });
  });

  it('holds, releases and deletes jobs and batches while the ingest queue is paused, and runs them once resumed', async () => {
    expect((await http.post('/queues/ingest/pause')).body).toEqual({
      queue: 'ingest',
      paused: true,
      changed: true,
    });
    const pendingBid = await submit({ ...SUBMIT, payloadUrl: 'sim:2' });
    const { bid, jids } = await expandedBatch(ctx, [objectSpec(0), objectSpec(1)], { payload_url: 'sim:2' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await loadBatch(ctx, pendingBid)).status).toBe('pending');
    expect((await http.post(`/batches/${pendingBid}/hold`)).body).toMatchObject({
      batch: { status: 'held' },
    });
    expect((await http.post(`/batches/${pendingBid}/release`)).body).toMatchObject({
      batch: { status: 'pending' },
    });
    expect((await http.post(`/jobs/${jids[0]}/hold`)).body).toMatchObject({ job: { status: 'held' } });
    expect((await http.post(`/jobs/${jids[0]}/release`)).body).toMatchObject({ job: { status: 'pending' } });
    expect((await http.post(`/jobs/${jids[1]}/hold`)).status).toBe(200);
    expect((await http.post(`/jobs/${jids[1]}/delete`, { reason: 'duplicate' })).body).toMatchObject({
      job: { status: 'deleted' },
    });
    expect((await http.post('/queues/ingest/resume')).body).toEqual({
      queue: 'ingest',
      paused: false,
      changed: true,
    });
    await waitBatch(pendingBid, 'completed');
    await waitBatch(bid, 'completed');
    expect((await jobsOf(bid)).map((j) => j.status).sort()).toEqual(['completed', 'deleted']);
  });

  it('requeues a failed job, updates the report of its failed batch, deletes the job and then the batch', async () => {
    const { bid } = await createBatch(ctx, {
      ...{ profile_name: 'demo', submitter: 'ann', payload_url: 'sim:2', type: 'file' },
      simulate: { failAt: { '0': 'downloading' } },
    });
    await waitBatch(bid, 'failed');
    const failed = (await jobsOf(bid)).find((j) => j.status === 'failed')!;
    const requeued = await http.post<{ job: { status: string; retryCount: number } }>(
      `/jobs/${failed.jid}/requeue`,
    );
    expect(requeued.status, requeued.text).toBe(200);
    expect(requeued.body.job).toMatchObject({ status: 'downloading', retryCount: 1 });
    // The simulation fails this job in downloading again; the batch reports failed again.
    await eventually(
      () => http.get<{ job: { status: string; retryCount: number } }>(`/jobs/${failed.jid}`),
      (res) => res.body.job.status === 'failed' && res.body.job.retryCount === 1,
    );
    await waitBatch(bid, 'failed');
    expect((await http.post(`/batches/${bid}/update-report`)).body).toMatchObject({
      batch: { status: 'update-reporting' },
    });
    await waitBatch(bid, 'failed');
    expect((await http.post(`/jobs/${failed.jid}/delete`, { reason: 'bad source' })).body).toMatchObject({
      job: { status: 'deleted' },
    });
    const deleted = await http.post<{ batch: { status: string }; removedJobs: string[] }>(
      `/batches/${bid}/delete`,
      { reason: 'resubmitted' },
    );
    expect(deleted.body.batch.status).toBe('deleted');
    expect(deleted.body.removedJobs).toHaveLength(2);
    expect((await http.get(`/batches/${bid}`)).status).toBe(404);
    expect((await http.get(`/jobs/${failed.jid}`)).status).toBe(404);
  });

  it('refuses an action the machine does not allow with 409 naming the state and the action', async () => {
    const bid = await submit({ ...SUBMIT, payloadUrl: 'sim:1' });
    await waitBatch(bid, 'completed');
    const [job] = await jobsOf(bid);
    const res = await http.post<{ error: string; message: string }>(`/jobs/${job!.jid}/hold`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('INVALID_TRANSITION');
    expect(res.body.message).toMatch(/hold job/);
    expect(res.body.message).toMatch(/state completed/);
    // "to" belongs to a job's requeue (a status the lifecycle does not know) and to nothing else.
    const stray = await http.post<{ error: string }>(`/jobs/${job!.jid}/hold`, { to: 'pending' });
    expect([stray.status, stray.body.error]).toEqual([400, 'BAD_REQUEST']);
    const known = await http.post<{ error: string }>(`/jobs/${job!.jid}/requeue`, { to: 'pending' });
    expect([known.status, known.body.error]).toEqual([409, 'INVALID_TRANSITION']);
  });

  it('holds a collection: a batch submitted to it waits held until the collection is released', async () => {
    expect((await http.post('/collections/hcoll/hold')).body).toEqual({
      collection: 'hcoll',
      held: true,
      changed: true,
    });
    const bid = await submit({ ...SUBMIT, payloadUrl: 'sim:2', collection: 'hcoll' });
    await waitBatch(bid, 'held');
    const released = await http.post<{ batches: string[]; held: boolean }>('/collections/hcoll/release');
    expect(released.body).toMatchObject({ held: false, batches: [bid] });
    await waitBatch(bid, 'completed');
  });

  it('answers 404 for unknown ids', async () => {
    expect((await http.get('/batches/bid9999999999')).status).toBe(404);
    expect((await http.get('/jobs/jid9999999999')).status).toBe(404);
    expect((await http.post('/jobs/jid9999999999/requeue')).status).toBe(404);
  });

  it('exposes /metrics as Prometheus text whose counts equal the tree after the run', async () => {
    await eventually(
      () => Object.values(engine.running()).reduce((a, b) => a + b, 0),
      (n) => n === 0,
    );
    const res = await http.get<string>('/metrics');
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const metrics = parsePrometheus(res.body);
    for (const state of jobStates) {
      const refs = await ctx.zk.getChildren(`/jobs/states/${state}`);
      expect(metrics.value('mrtq_jobs', { state }), state).toBe(refs.length);
    }
    const bids = (await ctx.zk.getChildren('/batches')).filter((b) => b.startsWith('bid'));
    const statuses = await Promise.all(bids.map(async (b) => (await loadBatch(ctx, b)).status));
    for (const status of batchStates) {
      expect(metrics.value('mrtq_batches', { status }), status).toBe(
        statuses.filter((s) => s === status).length,
      );
    }
    expect(statuses.filter((s) => s === 'completed').length).toBeGreaterThanOrEqual(4);
    expect(metrics.value('mrtq_zk_session_state', { state: 'connected' })).toBe(1);
    // This process's memory, as the memory bound is checked in production.
    const heapUsed = metrics.value('nodejs_heap_size_used_bytes')!;
    expect(heapUsed).toBeGreaterThan(0);
    expect(metrics.value('process_resident_memory_bytes')).toBeGreaterThan(heapUsed);
    expect(metrics.value('nodejs_heap_size_limit_bytes')).toBeGreaterThan(heapUsed);
    expect(metrics.type.get('mrtq_engine_in_flight')).toBe('gauge');
    expect(metrics.value('mrtq_engine_in_flight', { consumer: 'pending' })).toBe(0);
    expect(metrics.value('mrtq_batches_submitted_total', { created: 'true' })).toBe(submittedByApi);
    expect(metrics.type.get('mrtq_http_requests_total')).toBe('counter');
    expect(metrics.value('mrtq_queue_paused', { queue: 'ingest' })).toBe(0);
  });

  it('/openapi.json lists every route', async () => {
    const doc = (
      await http.get<{ openapi: string; paths: Record<string, Record<string, unknown>> }>('/openapi.json')
    ).body;
    expect(doc.openapi).toMatch(/^3\./);
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const actions = (prefix: string, names: string[]) => names.map((n) => `POST ${prefix}/${n}`);
    expect(listed.sort()).toEqual(
      [
        ...['GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /openapi.json', 'GET /events'],
        ...[
          'POST /batches',
          'POST /batches/manifest',
          'GET /batches',
          'GET /batches/{id}',
          'GET /jobs',
          'GET /jobs/{jid}',
        ],
        ...actions('/jobs/{jid}', ['hold', 'release', 'requeue', 'delete', 'fail', 'retry']),
        // Bulk actions and search (issue 21).
        ...['POST /jobs/bulk/{action}', 'GET /search'],
        // Rollups per collection and profile, and the live charts' history (issue 21).
        ...['GET /rollups', 'GET /metrics/history'],
        ...actions('/batches/{bid}', ['hold', 'release', 'update-report', 'delete']),
        ...actions('/queues/{queue}', ['pause', 'resume']),
        ...actions('/collections/{mnemonic}', ['hold', 'release']),
        // Maintenance windows (issue 34).
        ...['GET /windows', 'GET /windows/{name}', 'PUT /windows/{name}', 'DELETE /windows/{name}'],
        'POST /windows/{name}/skip',
        // Retry policies and fair shares (issue 34).
        ...['GET /retries', 'GET /policies/retry', 'PUT /policies/retry'],
        ...['GET /policies/shares', 'PUT /policies/shares', 'POST /policies/shares/{key}'],
        // Alert rules and their thresholds (issue 35).
        ...['GET /alerts', 'GET /policies/alerts', 'PUT /policies/alerts'],
        ...['GET /access', 'GET /access/{queue}/{qid}', 'POST /access/cleanup'],
        ...actions('/access/{queue}/{qid}', ['requeue', 'delete']),
        // The caller's credential, the audit log and the histories (issue 35).
        'GET /whoami',
        ...['GET /audit', 'GET /jobs/{jid}/history', 'GET /batches/{bid}/history'],
        // What the dashboard (/ui) reads besides the items.
        ...[
          'GET /overview',
          'GET /lifecycle',
          'GET /engines',
          'GET /machines/{lifecycle}/diagram',
          'GET /batches/{id}/timeline',
        ],
      ].sort(),
    );
    const submitOp = doc.paths['/batches']!.post as {
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(submitOp.requestBody.content['application/json']!.schema).toEqual(
      JSON.parse(JSON.stringify(submitBody)),
    );
  });
});
