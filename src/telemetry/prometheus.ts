/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: a `# HELP` and a
 * `# TYPE` line per family, then one `name{label="value"} number` line per sample.
 */

/** The content type of `/metrics`. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Readonly<Record<string, string>>;

/** One metric with its samples. */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram';
  /** `suffix` names a histogram's `_bucket`, `_sum` and `_count` samples. */
  samples: { labels?: Labels; value: number; suffix?: string }[];
}

const escapeHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (text: string): string =>
  text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

/**
 * The key of a label set: the same labels in any order give the same key. Called on every counted
 * transition and every ZooKeeper request, so it builds one string and sorts only when needed.
 */
export function labelKey(labels: Labels): string {
  const names = Object.keys(labels);
  if (names.length > 1) names.sort();
  let key = '';
  for (const name of names) key += `${name}\u0000${labels[name]}\u0001`;
  return key;
}

function formatLabels(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  return `{${entries.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(',')}}`;
}

/** The families as exposition text, ending with a newline. */
export function formatPrometheus(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      lines.push(
        `${family.name}${sample.suffix ?? ''}${formatLabels(sample.labels)} ${formatValue(sample.value)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Counters kept in this process (they restart at 0 with it, as Prometheus counters may). */
export class Counters {
  private readonly families = new Map<
    string,
    { help: string; samples: Map<string, MetricFamily['samples'][number]> }
  >();

  /** Declares a counter so it is exposed (with no samples) before its first increment. */
  declare(name: string, help: string): void {
    if (!this.families.has(name)) this.families.set(name, { help, samples: new Map() });
  }

  /** Adds `by` (default 1) to the counter's sample with these labels; the counter must be declared. */
  inc(name: string, labels: Labels = {}, by = 1): void {
    const family = this.families.get(name);
    if (!family) throw new Error(`counter ${name} was not declared`);
    const key = labelKey(labels);
    const sample = family.samples.get(key);
    if (sample) sample.value += by;
    else family.samples.set(key, { labels: { ...labels }, value: by });
  }

  /** Every counter as a metric family. */
  toFamilies(): MetricFamily[] {
    return [...this.families].map(([name, { help, samples }]) => ({
      name,
      help,
      type: 'counter' as const,
      samples: [...samples.values()].map((s) => ({ labels: s.labels, value: s.value })),
    }));
  }
}

/** Histograms kept in this process: cumulative buckets, sum and count per label set. */
export class Histograms {
  private readonly families = new Map<
    string,
    {
      help: string;
      buckets: readonly number[];
      series: Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>;
    }
  >();

  /** Declares a histogram; its bucket bounds must ascend (Prometheus requires it, observe relies on it). */
  declare(name: string, help: string, buckets: readonly number[]): void {
    if (buckets.some((bound, i) => i > 0 && bound <= buckets[i - 1]!))
      throw new Error(`histogram ${name}: bucket bounds must ascend`);
    if (!this.families.has(name)) this.families.set(name, { help, buckets, series: new Map() });
  }

  observe(name: string, labels: Labels, value: number): void {
    const family = this.families.get(name);
    if (!family) throw new Error(`histogram ${name} was not declared`);
    const key = labelKey(labels);
    let series = family.series.get(key);
    if (!series) {
      series = { labels: { ...labels }, counts: family.buckets.map(() => 0), sum: 0, count: 0 };
      family.series.set(key, series);
    }
    // Cumulative buckets: every bound at or above the value counts it (ascending, so stop below).
    const { buckets } = family;
    for (let i = buckets.length - 1; i >= 0 && value <= buckets[i]!; i--)
      series.counts[i] = (series.counts[i] ?? 0) + 1;
    series.sum += value;
    series.count += 1;
  }

  toFamilies(): MetricFamily[] {
    return [...this.families].map(([name, { help, buckets, series }]) => ({
      name,
      help,
      type: 'histogram' as const,
      samples: [...series.values()].flatMap((s) => [
        ...buckets.map((bound, i) => ({
          suffix: '_bucket',
          labels: { ...s.labels, le: String(bound) },
          value: s.counts[i] ?? 0,
        })),
        { suffix: '_bucket', labels: { ...s.labels, le: '+Inf' }, value: s.count },
        { suffix: '_sum', labels: s.labels, value: s.sum },
        { suffix: '_count', labels: s.labels, value: s.count },
      ]),
    }));
  }
}
