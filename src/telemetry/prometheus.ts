import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValueWithName,
} from 'prom-client';
import { getHeapStatistics } from 'node:v8';

/**
 * Prometheus metrics through prom-client, which keeps the values and writes the text format.
 * Every owner keeps its own {@link Registry} (an API app, an engine), never prom-client's global
 * one, so several apps and engines in one process (tests) do not clash; `/metrics` merges them
 * per scrape (src/http/metrics.ts).
 */

/** The content type of `/metrics` (text format 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE: string = Registry.PROMETHEUS_CONTENT_TYPE;

export type Labels = Readonly<Record<string, string>>;

/** One metric with its samples, as the dashboard reads counts from it. */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram' | 'summary';
  /** `suffix` names a histogram's `_bucket`, `_sum` and `_count` samples. */
  samples: { labels?: Labels; value: number; suffix?: string }[];
}

/** Metrics another part of the process keeps (the engine's), which `/metrics` adds. */
export interface MetricsProvider {
  readonly registry: Registry;
  /** The same metrics, read synchronously (a snapshot for samplers). */
  toFamilies(): MetricFamily[];
}

type PromJson = MetricObjectWithValues<MetricValueWithName<string>>;

const stringLabels = (labels: Readonly<Record<string, string | number | undefined>>): Labels =>
  Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));

/** prom-client's JSON (`registry.getMetricsAsJSON()`) as metric families. */
export function familiesOf(metrics: readonly PromJson[]): MetricFamily[] {
  return metrics.map((metric) => ({
    name: metric.name,
    help: metric.help,
    type: String(metric.type) as MetricFamily['type'],
    samples: metric.values.map((value) => {
      const suffix = value.metricName?.startsWith(metric.name)
        ? value.metricName.slice(metric.name.length)
        : '';
      return {
        labels: stringLabels(value.labels),
        value: value.value,
        ...(suffix ? { suffix } : {}),
      };
    }),
  }));
}

/** Every metric of the registries (already merged or not), as families, read through prom-client. */
export async function readFamilies(registry: Registry): Promise<MetricFamily[]> {
  return familiesOf(await registry.getMetricsAsJSON());
}

/** What prom-client keeps per label set of a counter or gauge, and of a histogram (not cumulative). */
interface ValueState {
  hashMap: Record<string, { labels: Labels; value: number }>;
}
interface HistogramState {
  upperBounds: readonly number[];
  hashMap: Record<
    string,
    { labels: Labels; bucketValues: Record<string, number>; sum: number; count: number }
  >;
}

function histogramSamples(state: HistogramState): MetricFamily['samples'] {
  return Object.values(state.hashMap).flatMap((series) => {
    let cumulative = 0;
    const buckets = state.upperBounds.map((bound) => {
      cumulative += series.bucketValues[bound] ?? 0;
      return { suffix: '_bucket', labels: { ...series.labels, le: String(bound) }, value: cumulative };
    });
    return [
      ...buckets,
      { suffix: '_bucket', labels: { ...series.labels, le: '+Inf' }, value: series.count },
      { suffix: '_sum', labels: series.labels, value: series.sum },
      { suffix: '_count', labels: series.labels, value: series.count },
    ];
  });
}

/**
 * A synchronous snapshot of counters, gauges and histograms that have no `collect()`:
 * prom-client's own reads are asynchronous, so this reads the per-label-set values it keeps
 * (`hashMap`). A unit test holds it equal to {@link readFamilies}, so a prom-client upgrade that
 * changes them is noticed.
 */
export function snapshotFamilies(registry: Registry): MetricFamily[] {
  return registry.getMetricsAsArray().map((metric) => {
    const { name, help } = metric as unknown as { name: string; help: string };
    if (metric instanceof Histogram) {
      const samples = histogramSamples(metric as unknown as HistogramState);
      return { name, help, type: 'histogram' as const, samples };
    }
    if (!(metric instanceof Counter) && !(metric instanceof Gauge))
      throw new Error(`metric ${name}: no synchronous snapshot of this kind`);
    const state = metric as unknown as ValueState;
    return {
      name,
      help,
      type: metric instanceof Counter ? ('counter' as const) : ('gauge' as const),
      samples: Object.values(state.hashMap).map((s) => ({ labels: { ...s.labels }, value: s.value })),
    };
  });
}

/** Counters kept in one registry (they restart at 0 with the process, as Prometheus counters may). */
export class Counters {
  readonly registry = new Registry();

  /**
   * Declares a counter so it is exposed before its first increment: with its HELP and TYPE, and
   * as 0 when it has no labels. Increments may use only the `labelNames` given here.
   */
  declare(name: string, help: string, labelNames: readonly string[] = []): void {
    if (!this.registry.getSingleMetric(name))
      new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  /** Adds `by` (default 1) to the counter's sample with these labels; the counter must be declared. */
  inc(name: string, labels: Labels = {}, by = 1): void {
    const counter = this.registry.getSingleMetric(name);
    if (!(counter instanceof Counter)) throw new Error(`counter ${name} was not declared`);
    counter.inc(labels, by);
  }

  /** Every counter as a metric family (a snapshot). */
  toFamilies(): MetricFamily[] {
    return snapshotFamilies(this.registry);
  }
}

let processRegistry: Registry | undefined;
const LOOP_LAG_PRECISION_MS = 100;

/**
 * This process's metrics, once per process (they describe the process, whichever app serves
 * them): prom-client's defaults under their standard names (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, `nodejs_eventloop_lag_seconds`,
 * `nodejs_gc_duration_seconds`…) and `nodejs_heap_size_limit_bytes`, the heap budget it was
 * started with. The event-loop lag is sampled every 100 ms, not prom-client's default 10 ms: a
 * hundred wake-ups a second were most of what an idle engine cost, and a lag worth alerting on
 * lasts far longer than 100 ms.
 */
export function processMetrics(): Registry {
  if (processRegistry) return processRegistry;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LOOP_LAG_PRECISION_MS });
  const limit: Gauge = new Gauge({
    name: 'nodejs_heap_size_limit_bytes',
    help: 'The V8 heap limit this process was started with.',
    registers: [registry],
    collect: (): void => limit.set(getHeapStatistics().heap_size_limit),
  });
  processRegistry = registry;
  return registry;
}
