import {
  accessStateTable,
  batchStateTable,
  jobStateTable,
  type AccessState,
  type BatchState,
  type JobState,
  type StateRow,
} from './states.js';

/**
 * Status names as Merritt's mrt-zk library writes them into `/jobs/JID/status`,
 * `/batches/BID/status` and `/access/.../status` (DESIGN.md §2), from the state tables.
 * Writers use these exactly; readers accept any case and `-`/`_` separators, because the
 * seeds themselves write `pending`, `update-reporting` and `UpdateReporting` for the same state.
 */
function wireNames<S extends string>(rows: readonly StateRow<S>[]): Readonly<Record<S, string>> {
  return Object.fromEntries(rows.map((row) => [row.state, row.wire])) as Record<S, string>;
}

export const jobWireNames: Readonly<Record<JobState, string>> = wireNames(jobStateTable);
export const batchWireNames: Readonly<Record<BatchState, string>> = wireNames(batchStateTable);
export const accessWireNames: Readonly<Record<AccessState, string>> = wireNames(accessStateTable);

function normalise(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
}

/** A tolerant reader of status names: the state a wire name (any case, any separator) names. */
export function wireParser<S extends string>(rows: readonly StateRow<S>[]): (wire: string) => S | undefined {
  const byKey = new Map<string, S>();
  for (const row of rows) {
    byKey.set(normalise(row.state), row.state);
    byKey.set(normalise(row.wire), row.state);
  }
  return (wire) => byKey.get(normalise(wire));
}

/** The job state a stored status names (`Estimating`, `estimating`, …), or undefined when unknown. */
export const parseJobState: (wire: string) => JobState | undefined = wireParser(jobStateTable);
/** The batch state a stored status names (`UpdateReporting`, `update-reporting`, …), or undefined. */
export const parseBatchState: (wire: string) => BatchState | undefined = wireParser(batchStateTable);
/** The access-request state a stored status names, or undefined when unknown. */
export const parseAccessState: (wire: string) => AccessState | undefined = wireParser(accessStateTable);
