import {
  accessStateTable,
  accessTable,
  batchStateTable,
  batchTable,
  type JobLifecycle,
  type TableEdge,
} from '../../machines/index.js';
import { machineEdges } from './dashboard/machine-edges.js';
import { stateCategory, type StateCategory } from './dashboard/state-roles.js';

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

/**
 * A state's roles, as `GET /lifecycle` gives them to clients (the dashboard colours and marks
 * states with them, never by their names).
 */
export interface StateRoles {
  /** No edge leaves it (read off the lifecycle's table). */
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
  const views = lifecycleViews(job);
  const rolesIn = (name: LifecycleName) => {
    const leaving = new Set(views[name].table.map((edge) => edge.from));
    return (state: string): StateRoles => ({ final: !leaving.has(state), category: stateCategory(state) });
  };
  const described = (name: LifecycleName, rows: readonly { state: string; wire: string }[]) => {
    const roles = rolesIn(name);
    return rows.map(({ state, wire }) => ({ state, wire, ...roles(state) }));
  };
  const jobRoles = rolesIn('job');
  return {
    job: {
      initial: job.initial,
      states: job.states.map((state) => {
        const step = job.stepOf(state);
        return {
          state,
          wire: job.wireName(state),
          ...jobRoles(state),
          folder: job.folderOf(state),
          working: step !== undefined,
          ...(step !== undefined ? { step } : {}),
        };
      }),
    },
    batch: { states: described('batch', batchStateTable) },
    access: { states: described('access', accessStateTable) },
  };
}
