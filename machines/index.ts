// The lifecycles of jobs, batches and access requests: pure XState v5 machines (no I/O),
// the transition tables they are checked against, and the pure helpers the queue store and
// the engine build on. See docs/machines.md.
export { jobMachine, jobMachineAt, type JobMachine } from './job.machine.js';
export { batchMachine, batchMachineAt, type BatchMachine } from './batch.machine.js';
export { accessMachine, accessMachineAt, type AccessMachine } from './access.machine.js';

export { newJobState, nextJobState, canJob, restoreJob, resumeStateAfter } from './job.restore.js';
export {
  defineJobLifecycle,
  merrittJobLifecycle,
  type JobLifecycle,
  type JobLifecycleDefinition,
  type JobCreationEvent,
} from './job.lifecycle.js';
export { jobRequeueTable } from './job.table.js';
export { jobSetup } from './job.setup.js';
export { byInitialState } from './machine-at.js';
export { failureMessage, assertProvided, retryLaterOf, STEP_RETRY, type RetryLater } from './step-actor.js';
export { newBatchState, nextBatchState, canBatch, restoreBatch } from './batch.restore.js';
export { newAccessState, nextAccessState, canAccess, restoreAccess } from './access.restore.js';
export type { TransitionResult, ValidTransition, InvalidTransition } from './next-state.js';

export * from './job.types.js';
export * from './batch.types.js';
export * from './access.types.js';
export { createJobContext } from './job.context.js';
export { createBatchContext, expansionFailureOf } from './batch.context.js';

export * from './states.js';
export * from './wire-names.js';

export { jobTable, type JobEdge, type JobTableEvent } from './job.table.js';
export { batchTable, type BatchEdge, type BatchTableEvent } from './batch.table.js';
export { accessTable, type AccessEdge, type AccessTableEvent } from './access.table.js';
export type { TableEdge, GuardRef } from './table.js';
export { lifecycles, lifecycleNames, type LifecycleName } from './lifecycles.js';

export { ActorNotProvidedError, notProvided } from './step-actor.js';
export { pureInitialSnapshot, pureMacrostep, pureTransition } from './inert.js';
export { invokeFree } from './invoke-free.js';
export { hasRunningStep } from './step-status.js';
export { toMermaid } from './mermaid.js';
export { batchRoles, batchReportingStates, batchFinishedStates, accessRoles } from './roles.js';
export {
  machineEdges,
  stateNames,
  initialState,
  finalStates,
  invokedSteps,
  statesAccepting,
  failureEvents,
  targetsByGuardValue,
  statesThatStay,
  tableProblems,
} from './structure.js';
