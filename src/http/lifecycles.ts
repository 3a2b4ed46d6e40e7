import {
  accessStateTable,
  accessTable,
  batchStateTable,
  batchTable,
  machineEdges,
  type JobLifecycle,
  type StateCategory,
  type StateRow,
  type TableEdge,
} from '../../machines/index.js';

/** The lifecycles the dashboard draws: `job` is the running queue's, the others are Merritt's. */
export const LIFECYCLE_NAMES = ['job', 'batch', 'access'] as const;
export type LifecycleName = (typeof LIFECYCLE_NAMES)[number];

/** What a diagram of one lifecycle is drawn from, and the `/metrics` gauge that counts its items. */
export interface LifecycleView {
  table: readonly TableEdge<string, string>[];
  /** The lifecycle's state rows, in table order (names, finality, colours). */
  rows: readonly StateRow[];
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
  return {
    job: {
      table: machineEdges(job.machine),
      rows: job.table,
      title: 'Job lifecycle',
      counted: { family: 'mrtq_jobs', label: 'state' },
    },
    batch: {
      table: batchTable,
      rows: batchStateTable,
      title: 'Batch lifecycle',
      counted: { family: 'mrtq_batches', label: 'status' },
    },
    access: { table: accessTable, rows: accessStateTable, title: 'Access request lifecycle' },
  };
}

/**
 * A state's roles, as `GET /lifecycle` gives them to clients (the dashboard colours and marks
 * states with them, never by their names).
 */
export interface StateRoles {
  /** Nothing leaves it (its row's `final`, which the machine agrees with). */
  final: boolean;
  /** How it is coloured: waiting, working, done, failed or gone. */
  category: StateCategory;
}

/** One state of the batch or access lifecycle as `GET /lifecycle` describes it. */
export interface StateDescription extends StateRoles {
  state: string;
  /** The status name ZooKeeper stores. */
  wire: string;
}

/** One job state as `GET /lifecycle` describes it. */
export interface JobStateDescription extends StateDescription {
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
  batch: { states: StateDescription[] };
  access: { states: StateDescription[] };
}

/** What a client (the dashboard) needs to list, filter and label states without spelling them out. */
export function describeLifecycles(job: JobLifecycle): LifecycleDescription {
  const describe = (row: StateRow): StateDescription => ({
    state: row.state,
    wire: row.wire,
    final: row.final === true,
    category: row.category,
  });
  return {
    job: {
      initial: job.initial,
      states: job.table.map((row) => ({
        ...describe(row),
        folder: job.folderOf(row.state),
        working: row.step !== undefined,
        ...(row.step !== undefined ? { step: row.step } : {}),
      })),
    },
    batch: { states: batchStateTable.map(describe) },
    access: { states: accessStateTable.map(describe) },
  };
}
