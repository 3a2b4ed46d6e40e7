/** Seconds and steps per job state, from the service's `mrtq_step_duration_seconds` histogram. */
export type StepTotals = Record<string, { s: number; count: number }>;

const SERIES = /^mrtq_step_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/;
const STATE_LABEL = /(?:^|,)state="([^"]*)"/;

/** The histogram's sum and count per `state` label, as GET /metrics shows them now. */
export async function stepTotals(base: string): Promise<StepTotals> {
  const response = await fetch(`${base}/metrics`);
  if (!response.ok) throw new Error(`GET ${base}/metrics: ${response.status}`);
  const totals: StepTotals = {};
  for (const line of (await response.text()).split('\n')) {
    const match = SERIES.exec(line);
    const state = match && STATE_LABEL.exec(match[2]!)?.[1];
    if (!match || state === undefined || state === null) continue;
    const entry = (totals[state] ??= { s: 0, count: 0 });
    if (match[1] === 'sum') entry.s += Number(match[3]);
    else entry.count += Number(match[3]);
  }
  return totals;
}

/** What happened between two readings, per state (states with no step in between left out). */
export function stepsBetween(before: StepTotals, after: StepTotals): StepTotals {
  const steps: StepTotals = {};
  for (const [state, { s, count }] of Object.entries(after)) {
    const earlier = before[state] ?? { s: 0, count: 0 };
    if (count - earlier.count > 0)
      steps[state] = { s: Math.round((s - earlier.s) * 1000) / 1000, count: count - earlier.count };
  }
  return steps;
}
