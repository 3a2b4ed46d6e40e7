import type { AnyStateMachine, EventObject } from 'xstate';
import { pureTransition } from './inert.js';
import { invokeFree } from './invoke-free.js';

/** The outcome the queue store writes: where the item goes and its context there. */
export interface ValidTransition<S extends string, C> {
  ok: true;
  /** `null` when the item is being created. */
  from: S | null;
  to: S;
  context: C;
}

/** The event is not allowed in that state. A value, not an exception: callers expect it. */
export interface InvalidTransition {
  ok: false;
  code: 'INVALID_TRANSITION';
  /** `null` when the item does not exist yet. */
  state: string | null;
  event: string;
  message: string;
}

export type TransitionResult<S extends string, C> = ValidTransition<S, C> | InvalidTransition;

export function invalidTransition(kind: string, state: string | null, event: string): InvalidTransition {
  const where = state === null ? `a new ${kind}` : `a ${kind} in state ${state}`;
  return {
    ok: false,
    code: 'INVALID_TRANSITION',
    state,
    event,
    message: `event "${event}" is not allowed for ${where}`,
  };
}

/**
 * Applies `event` to an item stored at `from` with `context`, without running anything:
 * the machine decides (`snapshot.can` and a pure transition), never the caller. It is asked
 * without its invokes (`invokeFree`: the same transitions), so entering the target state
 * creates no actor for its step.
 */
export function nextState<S extends string, C, E extends EventObject>(
  kind: string,
  machine: AnyStateMachine,
  from: S,
  context: C,
  event: E,
): TransitionResult<S, C> {
  const free = invokeFree(machine);
  const snapshot = free.resolveState({ value: from, context });
  if (!snapshot.can(event)) return invalidTransition(kind, from, event.type);
  const next = pureTransition(free, snapshot, event);
  return { ok: true, from, to: next.value as S, context: next.context as C };
}
