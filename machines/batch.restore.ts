import { pureInitialSnapshot } from './inert.js';
import { createBatchContext } from './batch.context.js';
import { batchMachine, batchMachineAt, type BatchMachine } from './batch.machine.js';
import type { BatchContext, BatchEvent, BatchInput, StoredBatch } from './batch.types.js';
import { nextState, type TransitionResult, type ValidTransition } from './next-state.js';
import type { BatchState } from './states.js';

function contextOf(stored: StoredBatch): BatchContext {
  const { status: _status, ...context } = stored;
  return createBatchContext(context);
}

/** The state and context a new batch is written with: pending ((none) → pending). */
export function newBatchState(input: BatchInput): ValidTransition<BatchState, BatchContext> {
  const snapshot = pureInitialSnapshot(batchMachine, input);
  return { ok: true, from: null, to: snapshot.value, context: snapshot.context };
}

/** Where `event` takes a batch stored in `stored.status`, or INVALID_TRANSITION. Pure. */
export function nextBatchState(
  stored: StoredBatch,
  event: BatchEvent,
): TransitionResult<BatchState, BatchContext> {
  return nextState('batch', batchMachine, stored.status, contextOf(stored), event);
}

/** Whether `event` is allowed for a batch stored in `stored.status`. */
export function canBatch(stored: StoredBatch, event: BatchEvent): boolean {
  return nextBatchState(stored, event).ok;
}

/** What an engine needs to run a stored batch from where it is (see restoreJob). */
export function restoreBatch(stored: StoredBatch): { machine: BatchMachine; input: BatchContext } {
  return { machine: batchMachineAt(stored.status), input: contextOf(stored) };
}
