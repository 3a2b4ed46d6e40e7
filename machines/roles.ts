import { accessTable } from './access.table.js';
import { batchTable } from './batch.table.js';
import { batchStateTable, type AccessState, type BatchState } from './states.js';
import type { TableEdge } from './table.js';

/**
 * The one state `event` leads to in `table`. Code outside the machines names a state by the edge
 * that enters it (a batch is `reporting` when `batch.jobs-done` took it there), never by its name,
 * so a renamed state is renamed once (DESIGN.md §7). Throws at load when an event leads to no
 * state or to several: the role would then be unclear.
 */
function stateEnteredBy<S extends string>(table: readonly TableEdge<S, string>[], event: string): S {
  const targets = [...new Set(table.filter((edge) => edge.event === event).map((edge) => edge.to))];
  if (targets.length !== 1)
    throw new Error(
      `"${event}" must lead to one state, it leads to ${targets.length > 0 ? targets.join(', ') : 'none'}`,
    );
  return targets[0] as S;
}

/** The batch states the engine and operators' actions name, each read off the edge that enters it. */
export const batchRoles = {
  /** Where a submitted batch waits for the batch consumer. */
  initial: stateEnteredBy<BatchState>(batchTable, 'batch.created'),
  /** Kept by a collection hold or an operator. */
  held: stateEnteredBy<BatchState>(batchTable, 'batch.held'),
  /** Expanded; its jobs run. */
  processing: stateEnteredBy<BatchState>(batchTable, 'batch.acquired'),
  /** Its jobs are done; the report goes out. */
  reporting: stateEnteredBy<BatchState>(batchTable, 'batch.jobs-done'),
  /** An operator asked for the report again. */
  updateReporting: stateEnteredBy<BatchState>(batchTable, 'admin.update-report'),
  /** Some jobs failed, or it could not be expanded or reported. */
  failed: stateEnteredBy<BatchState>(batchTable, 'report.failed'),
  deleted: stateEnteredBy<BatchState>(batchTable, 'admin.delete'),
} as const;

/** The batch states a batch ends in once reported (completed or failed): no work is left. */
export const batchFinishedStates: ReadonlySet<string> = new Set(
  batchTable.filter((edge) => edge.event === 'report.done').map((edge) => edge.to),
);

/** The batch states in which a report is sent (their row's step). */
export const batchReportingStates: ReadonlySet<BatchState> = new Set(
  batchStateTable.filter((row) => 'step' in row && row.step === 'report').map((row) => row.state),
);

/** The access request states the engine names, each read off the edge that enters it. */
export const accessRoles = {
  /** Where a new request waits for an access consumer. */
  initial: stateEnteredBy<AccessState>(accessTable, 'access.created'),
  /** A consumer assembles it. */
  processing: stateEnteredBy<AccessState>(accessTable, 'access.acquired'),
} as const;
