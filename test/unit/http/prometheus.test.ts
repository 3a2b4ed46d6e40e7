import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { EngineMetrics } from '../../../src/telemetry/engine-metrics.js';
import { Counters, processMetrics, readFamilies } from '../../../src/telemetry/prometheus.js';
import { parsePrometheus } from '../../integration/http/prometheus-parse.js';

describe('metrics through prom-client', () => {
  it('keeps counters per label set whatever the order of the labels, declared ones exposed before use', async () => {
    const counters = new Counters();
    counters.declare('mrtq_requests_total', 'Requests.', ['method', 'status']);
    counters.declare('mrtq_never_total', 'Declared, never incremented.', ['kind']);
    counters.declare('mrtq_dropped_total', 'No labels.');
    counters.inc('mrtq_requests_total', { method: 'GET', status: '200' });
    counters.inc('mrtq_requests_total', { status: '200', method: 'GET' }, 2);
    counters.inc('mrtq_requests_total', { method: 'POST', status: '201' });
    const text = await counters.registry.metrics();
    const parsed = parsePrometheus(text);
    expect(parsed.value('mrtq_requests_total', { method: 'GET', status: '200' })).toBe(3);
    expect(parsed.value('mrtq_requests_total', { method: 'POST', status: '201' })).toBe(1);
    expect(parsed.type.get('mrtq_never_total')).toBe('counter');
    expect(parsed.samples.filter((s) => s.name === 'mrtq_never_total')).toEqual([]);
    expect(parsed.value('mrtq_dropped_total')).toBe(0);
    expect(counters.toFamilies()).toEqual(await readFamilies(counters.registry));
    expect(() => counters.inc('mrtq_unknown_total')).toThrow(/not declared/);
    expect(() => counters.inc('mrtq_requests_total', { verb: 'GET' })).toThrow(/verb/);
  });

  it('writes histograms as cumulative buckets, a value on a bound counted in it, per label set', async () => {
    const metrics = new EngineMetrics();
    for (const seconds of [0.05, 0.1, 0.5, 1, 20]) metrics.stepDuration('downloading', seconds);
    metrics.stepDuration('storing', 2);
    const parsed = parsePrometheus(await metrics.registry.metrics());
    expect(parsed.type.get('mrtq_step_duration_seconds')).toBe('histogram');
    const bucket = (state: string, le: string) =>
      parsed.value('mrtq_step_duration_seconds_bucket', { state, le });
    expect(['0.05', '0.1', '1', '15', '+Inf'].map((le) => bucket('downloading', le))).toEqual([
      1, 2, 4, 4, 5,
    ]);
    expect(['1', '5', '+Inf'].map((le) => bucket('storing', le))).toEqual([0, 1, 1]);
    expect(parsed.value('mrtq_step_duration_seconds_sum', { state: 'downloading' })).toBeCloseTo(21.65);
    expect(parsed.value('mrtq_step_duration_seconds_count', { state: 'storing' })).toBe(1);
  });

  it("EngineMetrics' synchronous snapshot equals what prom-client reads (pins the values it keeps)", async () => {
    const metrics = new EngineMetrics();
    metrics.transition('job', 'notify', 'completed');
    metrics.transition('job', 'notify', 'completed');
    metrics.stepFailed('downloading', 'transient', 'retry');
    metrics.lockContention('pending');
    metrics.zkRequest('multi', 3, 'ok');
    metrics.stepDuration('processing', 0.2);
    metrics.cleanupRun('done', 2, { batches: 1, jobs: 0 });
    const snapshot = metrics.toFamilies();
    expect(snapshot).toEqual(await metrics.families());
    const transitions = snapshot.find((f) => f.name === 'mrtq_transitions_total');
    expect(transitions).toMatchObject({
      type: 'counter',
      samples: [{ labels: { kind: 'job', from: 'notify', to: 'completed' }, value: 2 }],
    });
    const removed = snapshot.find((f) => f.name === 'mrtq_cleanup_removed_total');
    expect(removed?.samples).toEqual([{ labels: { kind: 'batches' }, value: 1 }]);
  });

  it('gives every engine and every app its own registry: values never leak between them', async () => {
    const [a, b] = [new EngineMetrics(), new EngineMetrics()];
    a.transition('batch', 'reporting', 'completed');
    const [inA, inB] = await Promise.all([a.registry.metrics(), b.registry.metrics()]);
    expect(
      parsePrometheus(inA).value('mrtq_transitions_total', {
        kind: 'batch',
        from: 'reporting',
        to: 'completed',
      }),
    ).toBe(1);
    expect(parsePrometheus(inB).samples.filter((s) => s.name === 'mrtq_transitions_total')).toEqual([]);
    // Merged for a scrape, as /metrics does, with the process's metrics shared by both.
    const merged = Registry.merge([a.registry, new Counters().registry, processMetrics()]);
    const parsed = parsePrometheus(await merged.metrics());
    expect(parsed.type.get('process_cpu_seconds_total')).toBe('counter');
    expect(parsed.value('nodejs_heap_size_limit_bytes')).toBeGreaterThan(0);
  });
});
