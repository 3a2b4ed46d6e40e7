import {
  accessStateTable,
  accessTable,
  batchStateTable,
  batchTable,
  type JobLifecycle,
  type TableEdge,
} from '../../machines/index.js';
import { machineEdges } from './dashboard/machine-edges.js';

/** The lifecycles the dashboard draws: `job` is the running queue's, the others are Merritt's. */
export const LIFECYCLE_NAMES = ['job', 'batch', 'access'] as const;
export type LifecycleName = (typeof LIFECYCLE_NAMES)[number];

/** What a diagram of one lifecycle is drawn from, and the `/metrics` gauge that counts its items. */
export interface LifecycleView {
  table: readonly TableEdge<string, string>[];
  states: readonly string[];
  title: string;
  /** The gauge family and its label, when `/metrics` counts the items per state. */
  counted?: { family: string; label: string };
}

/**
 * The three lifecycles as the dashboard shows them. The job lifecycle is the queue's runtime
 * value (DESIGN.md §7): its states and edges are read from it, so a lifecycle with another state
 * is drawn and counted without a change here.
 */
export function lifecycleViews(job: JobLifecycle): Readonly<Record<LifecycleName, LifecycleView>> {
  const states = (rows: readonly { state: string }[]) => rows.map((row) => row.state);
  return {
    job: {
      table: machineEdges(job.machine),
      states: job.states,
      title: 'Job lifecycle',
      counted: { family: 'mrtq_jobs', label: 'state' },
    },
    batch: {
      table: batchTable,
      states: states(batchStateTable),
      title: 'Batch lifecycle',
      counted: { family: 'mrtq_batches', label: 'status' },
    },
    access: { table: accessTable, states: states(accessStateTable), title: 'Access request lifecycle' },
  };
}

/** One job state as `GET /lifecycle` describes it. */
export interface JobStateDescription {
  state: string;
  /** The status name ZooKeeper stores. */
  wire: string;
  /** The folder of its refs under `/jobs/states`. */
  folder: string;
  /** A step runs in it (a consumer serves it). */
  working: boolean;
  /** The step it runs, when working. */
  step?: string;
}

/** The answer of `GET /lifecycle`: the states of each lifecycle, in table order. */
export interface LifecycleDescription {
  job: { initial: string; states: JobStateDescription[] };
  batch: { states: { state: string; wire: string }[] };
  access: { states: { state: string; wire: string }[] };
}

/** What a client (the dashboard) needs to list, filter and label states without spelling them out. */
export function describeLifecycles(job: JobLifecycle): LifecycleDescription {
  const plain = (rows: readonly { state: string; wire: string }[]) =>
    rows.map(({ state, wire }) => ({ state, wire }));
  return {
    job: {
      initial: job.initial,
      states: job.states.map((state) => {
        const step = job.stepOf(state);
        return {
          state,
          wire: job.wireName(state),
          folder: job.folderOf(state),
          working: step !== undefined,
          ...(step !== undefined ? { step } : {}),
        };
      }),
    },
    batch: { states: plain(batchStateTable) },
    access: { states: plain(accessStateTable) },
  };
}
