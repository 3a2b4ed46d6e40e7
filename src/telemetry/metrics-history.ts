import { machineEdges, type JobLifecycle } from '../../machines/index.js';
import type { EngineMetrics } from './engine-metrics.js';
import { RingBuffer } from './ring-buffer.js';
import { StepLatencies, type StepLatency } from './step-latency.js';

export type { StepLatency } from './step-latency.js';

/** How far back the history reaches. */
export const HISTORY_RETAIN_MS = 60 * 60 * 1000;
/** How often the service samples by default. */
export const DEFAULT_SAMPLE_INTERVAL_MS = 10_000;
/** The most points kept, whatever the interval (a test samples faster and keeps less than an hour). */
export const HISTORY_MAX_POINTS = 3600;

/** Counts of one interval: jobs finished, jobs failed, transitions of every kind. */
export interface Throughput {
  completed: number;
  failed: number;
  transitions: number;
}

/** One point of the history: what happened in the interval that ended at `at`. */
export interface HistorySample {
  /** End of the interval, epoch milliseconds. */
  at: number;
  /** Length of the interval in seconds (0 only when two samples share a millisecond). */
  seconds: number;
  /** What this process's engine committed in the interval. */
  counts: Throughput;
  /** The same per second (0 for an interval of no length, never NaN). */
  rates: Throughput;
  /** Jobs per state in the whole queue at `at`; absent when the queue could not be read. */
  depth?: Readonly<Record<string, number>>;
  /** Per working state, how long the steps that ended in the interval took. */
  latency: Readonly<Record<string, StepLatency>>;
}

/**
 * The states that count as a job finishing, read from the lifecycle: `completed` are final states
 * a working state's transition enters (not deleted, which only an operator reaches), `failed` the
 * states the lifecycle's failure events enter.
 */
export function outcomeStates(lifecycle: JobLifecycle): { completed: string[]; failed: string[] } {
  const completed = new Set<string>();
  const failed = new Set<string>();
  for (const { from, to } of machineEdges(lifecycle.machine)) {
    if (from === null) continue;
    if (lifecycle.isFailed(to)) failed.add(to);
    else if (lifecycle.isWorking(from) && lifecycle.isFinal(to)) completed.add(to);
  }
  return { completed: [...completed], failed: [...failed] };
}

const perSecond = (counts: Throughput, seconds: number): Throughput =>
  seconds > 0
    ? {
        completed: counts.completed / seconds,
        failed: counts.failed / seconds,
        transitions: counts.transitions / seconds,
      }
    : { completed: 0, failed: 0, transitions: 0 };

/**
 * The last hour of this process's own metrics, one point per sample: throughput from monotonic
 * counters (each point is the difference from the one before), queue depth per state as given,
 * step latency per working state. Fed by {@link recordInto}; sampled by a timer
 * ({@link startSampling}).
 */
export class MetricsHistory {
  readonly intervalMs: number;
  private readonly points: RingBuffer<HistorySample>;
  private readonly outcomes: { completed: Set<string>; failed: Set<string> };
  private readonly latencies: StepLatencies;
  private readonly now: () => number;
  /** Monotonic since the process started, like the Prometheus counters. */
  private readonly totals: Throughput = { completed: 0, failed: 0, transitions: 0 };
  private last: { at: number; totals: Throughput };

  constructor(
    readonly lifecycle: JobLifecycle,
    options: { intervalMs?: number; now?: () => number; random?: () => number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS;
    if (!(this.intervalMs > 0))
      throw new RangeError(`sample interval must be positive, not ${this.intervalMs}`);
    const capacity = Math.min(HISTORY_MAX_POINTS, Math.ceil(HISTORY_RETAIN_MS / this.intervalMs));
    this.points = new RingBuffer(capacity);
    const { completed, failed } = outcomeStates(lifecycle);
    this.outcomes = { completed: new Set(completed), failed: new Set(failed) };
    this.latencies = new StepLatencies(options.random);
    this.now = options.now ?? Date.now;
    this.last = { at: this.now(), totals: { ...this.totals } };
  }

  /** Points kept at most (at most an hour of them). */
  get capacity(): number {
    return this.points.capacity;
  }

  transition(kind: string, _from: string, to: string): void {
    this.totals.transitions += 1;
    if (kind !== 'job') return;
    if (this.outcomes.completed.has(to)) this.totals.completed += 1;
    else if (this.outcomes.failed.has(to)) this.totals.failed += 1;
  }

  stepDuration(state: string, seconds: number): void {
    this.latencies.observe(state, seconds);
  }

  /** Ends the current interval now: one point, the oldest dropped when an hour's worth is kept. */
  sample(depth?: Readonly<Record<string, number>>): HistorySample {
    const at = this.now();
    const seconds = Math.max(0, at - this.last.at) / 1000;
    const before = this.last.totals;
    const counts: Throughput = {
      completed: this.totals.completed - before.completed,
      failed: this.totals.failed - before.failed,
      transitions: this.totals.transitions - before.transitions,
    };
    const point: HistorySample = {
      at,
      seconds,
      counts,
      rates: perSecond(counts, seconds),
      ...(depth ? { depth } : {}),
      latency: this.latencies.take(),
    };
    this.points.push(point);
    this.last = { at, totals: { ...this.totals } };
    return point;
  }

  /** The points kept, oldest first; with `since`, only those after it (epoch ms). */
  samples(since?: number): HistorySample[] {
    return since === undefined ? this.points.toArray() : this.points.toArray((p) => p.at > since);
  }
}

/** What the engine reports into the history (methods of {@link EngineMetrics}). */
export type RecordedMetrics = Pick<EngineMetrics, 'transition' | 'stepDuration'>;

/**
 * Makes `metrics` also report into `history`: its own `transition` and `stepDuration` still run
 * first, so `/metrics` is unchanged. Depends on those two methods only, not on how the registry
 * stores them.
 */
export function recordInto<T extends RecordedMetrics>(metrics: T, history: MetricsHistory): T {
  const transition = metrics.transition.bind(metrics);
  const stepDuration = metrics.stepDuration.bind(metrics);
  metrics.transition = (kind, from, to) => {
    transition(kind, from, to);
    history.transition(kind, from, to);
  };
  metrics.stepDuration = (state, seconds) => {
    stepDuration(state, seconds);
    history.stepDuration(state, seconds);
  };
  return metrics;
}

/** A running sampler: `stop()` ends it and waits for a sample in progress. */
export interface Sampling {
  stop(): Promise<void>;
}

/**
 * Samples `history` every interval, reading the queue's depth per state first. A failed read
 * (ZooKeeper away) gives a point without depth and is passed to `onError`; a read slower than the
 * interval makes the next point span both (ticks that find one running are skipped).
 */
export function startSampling(
  history: MetricsHistory,
  depth: () => Promise<Readonly<Record<string, number>>>,
  onError: (err: unknown) => void = () => undefined,
): Sampling {
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running) return;
    running = depth()
      .then(
        (counts) => void history.sample(counts),
        (err: unknown) => {
          onError(err);
          history.sample();
        },
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, history.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
