import { accessMachine } from './access.machine.js';
import { accessTable } from './access.table.js';
import { batchMachine } from './batch.machine.js';
import { batchTable } from './batch.table.js';
import { jobMachine } from './job.machine.js';
import { jobTable } from './job.table.js';
import {
  accessStateTable,
  accessStates,
  batchStateTable,
  batchStates,
  jobStateTable,
  jobStates,
} from './states.js';
import { accessWireNames, batchWireNames, jobWireNames } from './wire-names.js';

/** The three lifecycles side by side, for tools that treat them alike (diagrams, tests, docs). */
export const lifecycles = {
  job: {
    machine: jobMachine,
    table: jobTable,
    rows: jobStateTable,
    states: jobStates,
    wireNames: jobWireNames,
  },
  batch: {
    machine: batchMachine,
    table: batchTable,
    rows: batchStateTable,
    states: batchStates,
    wireNames: batchWireNames,
  },
  access: {
    machine: accessMachine,
    table: accessTable,
    rows: accessStateTable,
    states: accessStates,
    wireNames: accessWireNames,
  },
} as const;

export type LifecycleName = keyof typeof lifecycles;
export const lifecycleNames = Object.keys(lifecycles) as LifecycleName[];
