/** How long a step took over one interval, in seconds. */
export interface StepLatency {
  /** Steps that ended in the interval. */
  count: number;
  mean: number;
  median: number;
  p95: number;
}

/** Durations kept per state and interval for the percentiles; count and mean stay exact beyond it. */
const RESERVOIR = 1024;

/** The nearest-rank percentile of sorted values (never NaN: callers pass at least one). */
function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

interface Interval {
  count: number;
  sum: number;
  kept: number[];
}

/**
 * Step durations of the current interval, per state, summarised and reset by {@link take}. A busy
 * interval keeps a uniform sample of {@link RESERVOIR} durations per state (Vitter's algorithm R),
 * so memory stays bounded however many steps end in it.
 */
export class StepLatencies {
  private intervals = new Map<string, Interval>();

  constructor(private readonly random: () => number = Math.random) {}

  observe(state: string, seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    let interval = this.intervals.get(state);
    if (!interval) this.intervals.set(state, (interval = { count: 0, sum: 0, kept: [] }));
    interval.count += 1;
    interval.sum += seconds;
    if (interval.kept.length < RESERVOIR) interval.kept.push(seconds);
    else {
      const slot = Math.floor(this.random() * interval.count);
      if (slot < RESERVOIR) interval.kept[slot] = seconds;
    }
  }

  /** The interval's summary per state that ran a step (a state with none is absent), then a new interval. */
  take(): Record<string, StepLatency> {
    const summary: Record<string, StepLatency> = {};
    for (const [state, { count, sum, kept }] of this.intervals) {
      const sorted = kept.sort((a, b) => a - b);
      summary[state] = {
        count,
        mean: sum / count,
        median: percentile(sorted, 0.5),
        p95: percentile(sorted, 0.95),
      };
    }
    this.intervals = new Map();
    return summary;
  }
}
