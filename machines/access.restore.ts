import { pureInitialSnapshot } from './inert.js';
import { accessMachine, accessMachineAt, type AccessMachine } from './access.machine.js';
import {
  createAccessContext,
  type AccessContext,
  type AccessEvent,
  type AccessInput,
  type StoredAccess,
} from './access.types.js';
import { nextState, type TransitionResult, type ValidTransition } from './next-state.js';
import type { AccessState } from './states.js';

function contextOf(stored: StoredAccess): AccessContext {
  const { status: _status, ...context } = stored;
  return createAccessContext(context);
}

/** The state and context a new access request is written with: pending. */
export function newAccessState(input: AccessInput): ValidTransition<AccessState, AccessContext> {
  const snapshot = pureInitialSnapshot(accessMachine, input);
  return { ok: true, from: null, to: snapshot.value, context: snapshot.context };
}

/** Where `event` takes an access request stored in `stored.status`, or INVALID_TRANSITION. Pure. */
export function nextAccessState(
  stored: StoredAccess,
  event: AccessEvent,
): TransitionResult<AccessState, AccessContext> {
  return nextState('access request', accessMachine, stored.status, contextOf(stored), event);
}

/** Whether `event` is allowed for an access request stored in `stored.status`. */
export function canAccess(stored: StoredAccess, event: AccessEvent): boolean {
  return nextAccessState(stored, event).ok;
}

/** What an engine needs to run a stored access request from where it is (see restoreJob). */
export function restoreAccess(stored: StoredAccess): { machine: AccessMachine; input: AccessContext } {
  return { machine: accessMachineAt(stored.status), input: contextOf(stored) };
}
