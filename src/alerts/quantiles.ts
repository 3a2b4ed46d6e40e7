/** The quantiles `mrtq_job_state_age_seconds` gives per state; 1 is the oldest. */
export const AGE_QUANTILES = [0.5, 0.9, 0.99, 1] as const;

/**
 * The `q`-quantiles of `values` by the nearest-rank method (the smallest value with at least
 * q·n values at or below it), so every answer is a value that was read; empty input gives none.
 */
export function quantiles(values: readonly number[], qs: readonly number[] = AGE_QUANTILES): number[] {
  if (values.length === 0) return [];
  const sorted = [...values].sort((a, b) => a - b);
  return qs.map((q) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1]!);
}

/**
 * What the ages of one state's jobs read: `sampled` ages (ms) the middle quantiles come from, and
 * `oldest` the largest age found by any read (a sample may miss the oldest job; see
 * state-ages.ts for how large folders are read).
 */
export interface AgeReading {
  sampled: readonly number[];
  oldest: number | undefined;
}

/** Quantile (`"0.5"`…`"1"`) → age in seconds, the oldest at 1; empty when no job was read. */
export function ageQuantiles(reading: AgeReading): Record<string, number> {
  const values = quantiles(reading.sampled);
  if (values.length === 0) return {};
  const byQ = Object.fromEntries(AGE_QUANTILES.map((q, i) => [String(q), values[i]! / 1000]));
  byQ['1'] = Math.max(values.at(-1)!, reading.oldest ?? 0) / 1000;
  return byQ;
}
