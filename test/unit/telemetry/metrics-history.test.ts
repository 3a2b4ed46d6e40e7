import { afterEach, describe, expect, it, vi } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import {
  HISTORY_MAX_POINTS,
  MetricsHistory,
  outcomeStates,
  recordInto,
  type RecordedMetrics,
  startSampling,
} from '../../../src/telemetry/metrics-history.js';
import { RingBuffer } from '../../../src/telemetry/ring-buffer.js';
import { StepLatencies } from '../../../src/telemetry/step-latency.js';

/** A clock the test moves by hand. */
function manualClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const hasNaN = (value: unknown): boolean =>
  typeof value === 'number'
    ? Number.isNaN(value)
    : typeof value === 'object' && value !== null && Object.values(value).some(hasNaN);

describe('RingBuffer', () => {
  it('keeps the newest items up to its capacity, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    expect(ring.toArray()).toEqual([]);
    for (const n of [1, 2]) ring.push(n);
    expect(ring.toArray()).toEqual([1, 2]);
    for (const n of [3, 4, 5]) ring.push(n);
    expect(ring.size).toBe(3);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.toArray((n) => n > 3)).toEqual([4, 5]);
  });

  it('refuses a capacity below one', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
});

describe('StepLatencies', () => {
  it('summarises an interval per state (nearest-rank median and p95) and starts a new one', () => {
    const latencies = new StepLatencies();
    // Quarters add up exactly in binary floating point.
    for (let i = 20; i >= 1; i -= 1) latencies.observe('downloading', i / 4);
    latencies.observe('estimating', 0.25);
    expect(latencies.take()).toEqual({
      downloading: { count: 20, mean: 2.625, median: 2.5, p95: 4.75 },
      estimating: { count: 1, mean: 0.25, median: 0.25, p95: 0.25 },
    });
    expect(latencies.take()).toEqual({});
  });

  it('keeps count and mean exact past its sample of durations', () => {
    const latencies = new StepLatencies(() => 0.999);
    for (let i = 0; i < 5000; i += 1) latencies.observe('processing', 2);
    expect(latencies.take().processing).toEqual({ count: 5000, mean: 2, median: 2, p95: 2 });
  });
});

describe('MetricsHistory', () => {
  it('reads which states finish and fail a job from the lifecycle', () => {
    expect(outcomeStates(merrittJobLifecycle)).toEqual({ completed: ['completed'], failed: ['failed'] });
  });

  it('computes per-interval counts and rates from the counters it is fed', () => {
    const clock = manualClock();
    const history = new MetricsHistory(merrittJobLifecycle, { intervalMs: 10_000, now: clock.now });
    history.transition('job', 'pending', 'estimating');
    history.transition('job', 'notify', 'completed');
    history.transition('job', 'notify', 'completed');
    history.transition('job', 'downloading', 'failed');
    history.transition('batch', 'processing', 'reporting');
    // An operator's delete reaches a final state, but is not a job finishing.
    history.transition('job', 'held', 'deleted');
    clock.advance(10_000);
    const first = history.sample({ pending: 4 });
    expect(first.counts).toEqual({ completed: 2, failed: 1, transitions: 6 });
    expect(first.rates).toEqual({ completed: 0.2, failed: 0.1, transitions: 0.6 });
    expect(first.depth).toEqual({ pending: 4 });

    history.transition('job', 'notify', 'completed');
    clock.advance(5000);
    const second = history.sample();
    expect(second.counts).toEqual({ completed: 1, failed: 0, transitions: 1 });
    expect(second.rates.completed).toBe(0.2);
    expect(second.seconds).toBe(5);
    expect(second).not.toHaveProperty('depth');
  });

  it('gives zeros and no latency for an empty interval, never NaN, even one of no length', () => {
    const clock = manualClock();
    const history = new MetricsHistory(merrittJobLifecycle, { now: clock.now });
    const empty = history.sample();
    expect(empty.seconds).toBe(0);
    expect(empty.counts).toEqual({ completed: 0, failed: 0, transitions: 0 });
    expect(empty.rates).toEqual({ completed: 0, failed: 0, transitions: 0 });
    expect(empty.latency).toEqual({});
    clock.advance(10_000);
    const quiet = history.sample({});
    expect(hasNaN(quiet)).toBe(false);
    expect(quiet.rates).toEqual({ completed: 0, failed: 0, transitions: 0 });
  });

  it('keeps at most an hour of points, oldest first, and answers those after `since`', () => {
    const clock = manualClock();
    const history = new MetricsHistory(merrittJobLifecycle, { intervalMs: 60_000, now: clock.now });
    expect(history.capacity).toBe(60);
    const ats: number[] = [];
    for (let i = 0; i < 75; i += 1) {
      clock.advance(60_000);
      ats.push(history.sample().at);
    }
    const kept = history.samples();
    expect(kept).toHaveLength(60);
    expect(kept.map((p) => p.at)).toEqual(ats.slice(15));
    expect(history.samples(ats[72]).map((p) => p.at)).toEqual(ats.slice(73));
    expect(history.samples(ats[74])).toEqual([]);
  });

  it('bounds the points of a fast interval too', () => {
    const history = new MetricsHistory(merrittJobLifecycle, { intervalMs: 10 });
    expect(history.capacity).toBe(HISTORY_MAX_POINTS);
  });

  it('is fed through the engine metrics, whose own methods still run (for /metrics)', () => {
    const clock = manualClock();
    const history = new MetricsHistory(merrittJobLifecycle, { now: clock.now });
    const seen: unknown[][] = [];
    const engineMetrics: RecordedMetrics = {
      transition: (...args) => void seen.push(['transition', ...args]),
      stepDuration: (...args) => void seen.push(['stepDuration', ...args]),
    };
    const metrics = recordInto(engineMetrics, history);
    expect(metrics).toBe(engineMetrics);
    metrics.transition('job', 'notify', 'completed');
    metrics.stepDuration('downloading', 0.5);
    metrics.stepDuration('downloading', 1.5);
    clock.advance(2000);
    const point = history.sample();
    expect(point.counts.completed).toBe(1);
    expect(point.latency).toEqual({ downloading: { count: 2, mean: 1, median: 0.5, p95: 1.5 } });
    expect(seen).toEqual([
      ['transition', 'job', 'notify', 'completed'],
      ['stepDuration', 'downloading', 0.5],
      ['stepDuration', 'downloading', 1.5],
    ]);
  });
});

describe('startSampling', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('samples every interval with the depth it reads, and without it when the read fails', async () => {
    vi.useFakeTimers();
    const history = new MetricsHistory(merrittJobLifecycle, { intervalMs: 1000 });
    const errors: unknown[] = [];
    let reads = 0;
    const depth = (): Promise<Record<string, number>> =>
      ++reads === 2 ? Promise.reject(new Error('ZooKeeper away')) : Promise.resolve({ pending: reads });
    const sampling = startSampling(history, depth, (err) => errors.push(err));
    await vi.advanceTimersByTimeAsync(999);
    expect(history.samples()).toEqual([]);
    await vi.advanceTimersByTimeAsync(3001);
    expect(history.samples().map((s) => s.depth)).toEqual([
      { pending: 1 },
      undefined,
      { pending: 3 },
      { pending: 4 },
    ]);
    expect(errors).toHaveLength(1);
    await sampling.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(history.samples()).toHaveLength(4);
  });
});
