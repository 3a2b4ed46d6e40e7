import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { EngineMetrics } from '../../../src/telemetry/engine-metrics.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, client } from './api-fixture.js';
import { parsePrometheus, type Exposition } from './prometheus-parse.js';

const chroot = useZkChroot();

/** Every family `/metrics` had before prom-client, with its type: names, labels and types are the contract. */
const FAMILIES: Readonly<Record<string, string>> = {
  mrtq_jobs: 'gauge',
  mrtq_batches: 'gauge',
  mrtq_queue_paused: 'gauge',
  mrtq_collections_held: 'gauge',
  mrtq_access_requests: 'gauge',
  mrtq_zk_session_state: 'gauge',
  mrtq_engine_in_flight: 'gauge',
  mrtq_events_clients: 'gauge',
  mrtq_events_held_bytes: 'gauge',
  mrtq_http_requests_total: 'counter',
  mrtq_batches_submitted_total: 'counter',
  mrtq_events_clients_dropped_total: 'counter',
  mrtq_transitions_total: 'counter',
  mrtq_step_failures_total: 'counter',
  mrtq_lock_contention_total: 'counter',
  mrtq_cleanup_runs_total: 'counter',
  mrtq_cleanup_removed_total: 'counter',
  mrtq_step_duration_seconds: 'histogram',
  mrtq_cleanup_duration_seconds: 'histogram',
  mrtq_zk_request_duration_seconds: 'histogram',
  process_resident_memory_bytes: 'gauge',
  nodejs_heap_size_total_bytes: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
  nodejs_heap_size_limit_bytes: 'gauge',
  nodejs_external_memory_bytes: 'gauge',
};

/** prom-client's default process metrics added with the swap (docs/http.md). */
const ADDED: Readonly<Record<string, string>> = {
  process_cpu_seconds_total: 'counter',
  process_start_time_seconds: 'gauge',
  process_open_fds: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_version_info: 'gauge',
};

describe('/metrics through prom-client: one registry per app, the same names, labels and types', () => {
  let ctx: QueueContext;
  const apps: { api: RunningHttpApi; metrics: EngineMetrics }[] = [];

  const scrape = async (i: number): Promise<Exposition> => {
    const res = await client(apps[i]!.api.url).get<string>('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheus(res.body);
  };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk, ctx.lifecycle);
    // Two apps in one process over one queue, each with its own engine metrics.
    for (let i = 0; i < 2; i += 1) {
      const metrics = new EngineMetrics();
      apps.push({ api: await startHttpApi(await apiDeps(ctx, { metrics }), { port: 0 }), metrics });
    }
  });
  afterAll(async () => {
    for (const { api } of apps) await api.close();
  });

  it('exposes every family with its type, parsed strictly, and the process metrics under their standard names', async () => {
    const parsed = await scrape(0);
    for (const [name, type] of Object.entries({ ...FAMILIES, ...ADDED })) {
      expect(parsed.type.get(name), name).toBe(type);
      expect(parsed.help.get(name), name).not.toBe('');
    }
    expect(parsed.value('mrtq_jobs', { state: 'pending' })).toBe(0);
    expect(parsed.value('mrtq_zk_session_state', { state: 'connected' })).toBe(1);
    expect(parsed.value('mrtq_queue_paused', { queue: 'ingest' })).toBe(0);
    expect(parsed.value('mrtq_events_clients_dropped_total')).toBe(0);
    expect(parsed.value('process_resident_memory_bytes')).toBeGreaterThan(
      parsed.value('nodejs_heap_size_used_bytes')!,
    );
  });

  it('computes the queue gauges at scrape time', async () => {
    await ctx.zk.create('/locks/queue/ingest', Buffer.alloc(0));
    try {
      expect((await scrape(0)).value('mrtq_queue_paused', { queue: 'ingest' })).toBe(1);
    } finally {
      await ctx.zk.delete('/locks/queue/ingest');
    }
    expect((await scrape(0)).value('mrtq_queue_paused', { queue: 'ingest' })).toBe(0);
  });

  it("keeps each app's counters and engine metrics to itself", async () => {
    apps[1]!.metrics.transition('job', 'notify', 'completed');
    apps[1]!.metrics.stepDuration('downloading', 0.2);
    for (let i = 0; i < 3; i += 1) await client(apps[1]!.api.url).get('/healthz');
    const [first, second] = [await scrape(0), await scrape(1)];
    const transition = { kind: 'job', from: 'notify', to: 'completed' };
    expect(second.value('mrtq_transitions_total', transition)).toBe(1);
    expect(first.value('mrtq_transitions_total', transition)).toBeUndefined();
    expect(second.value('mrtq_step_duration_seconds_count', { state: 'downloading' })).toBe(1);
    expect(second.value('mrtq_step_duration_seconds_bucket', { state: 'downloading', le: '0.5' })).toBe(1);
    const healthz = { method: 'GET', route: '/healthz', status: '200' };
    expect(second.value('mrtq_http_requests_total', healthz)).toBe(3);
    expect(first.value('mrtq_http_requests_total', healthz)).toBeUndefined();
  });
});
