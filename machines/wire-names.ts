import {
  accessStates,
  batchStates,
  jobStates,
  type AccessState,
  type BatchState,
  type JobState,
} from './states.js';

/**
 * Status names as Merritt's mrt-zk library writes them into `/jobs/JID/status`,
 * `/batches/BID/status` and `/access/.../status` (DESIGN.md §2): capitalised, no separators.
 * Writers use these exactly; readers accept any case and `-`/`_` separators, because the
 * seeds themselves write `pending`, `update-reporting` and `UpdateReporting` for the same state.
 */
export const jobWireNames: Readonly<Record<JobState, string>> = {
  pending: 'Pending',
  held: 'Held',
  estimating: 'Estimating',
  provisioning: 'Provisioning',
  downloading: 'Downloading',
  processing: 'Processing',
  recording: 'Recording',
  notify: 'Notify',
  completed: 'Completed',
  failed: 'Failed',
  deleted: 'Deleted',
};

export const batchWireNames: Readonly<Record<BatchState, string>> = {
  pending: 'Pending',
  held: 'Held',
  processing: 'Processing',
  reporting: 'Reporting',
  completed: 'Completed',
  failed: 'Failed',
  'update-reporting': 'UpdateReporting',
  deleted: 'Deleted',
};

export const accessWireNames: Readonly<Record<AccessState, string>> = {
  pending: 'Pending',
  processing: 'Processing',
  completed: 'Completed',
  failed: 'Failed',
  deleted: 'Deleted',
};

function normalise(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
}

function parser<S extends string>(states: readonly S[]): (wire: string) => S | undefined {
  const byKey = new Map(states.map((state) => [normalise(state), state]));
  return (wire) => byKey.get(normalise(wire));
}

/** The job state a stored status names (`Estimating`, `estimating`, …), or undefined when unknown. */
export const parseJobState: (wire: string) => JobState | undefined = parser(jobStates);
/** The batch state a stored status names (`UpdateReporting`, `update-reporting`, …), or undefined. */
export const parseBatchState: (wire: string) => BatchState | undefined = parser(batchStates);
/** The access-request state a stored status names, or undefined when unknown. */
export const parseAccessState: (wire: string) => AccessState | undefined = parser(accessStates);
