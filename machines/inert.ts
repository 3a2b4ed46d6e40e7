import {
  createActor,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';

/**
 * xstate's pure `transition()` builds a throwaway scope on every call: an actor of the whole
 * machine, an actor system, and the machine's initial snapshot (whose context factory throws
 * without input, so every call also built an Error with its stack). Measured on xstate 5.33,
 * that is two thirds of the cost of one transition. The scope is inert (it executes nothing and
 * starts no child), so one per machine serves every call; calls are synchronous and never
 * interleave.
 */
type MachineScope = Parameters<AnyStateMachine['transition']>[2];

interface InertScope {
  scope: MachineScope;
  /** Events processed during the current call, when one is recording. */
  recording: EventObject[] | undefined;
}

const scopes = new WeakMap<AnyStateMachine, InertScope>();

function inertScope(machine: AnyStateMachine): InertScope {
  let inert = scopes.get(machine);
  if (inert) return inert;
  const self = createActor(machine);
  const made: InertScope = {
    recording: undefined,
    scope: {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      defer: () => undefined,
      logger: () => undefined,
      stopChild: () => undefined,
      emit: () => undefined,
      actionExecutor: () => undefined,
    },
  };
  // Every processed event, raised ones included, shows as a microstep of the scope's actor.
  self.system.inspect({
    next: (event) => {
      if (event.type === '@xstate.microstep' && event.actorRef === self) made.recording?.push(event.event);
    },
  });
  scopes.set(machine, made);
  inert = made;
  return inert;
}

/** The snapshot after `event`, executing nothing (xstate's `transition` without its per-call scope). */
export function pureTransition<M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  event: EventObject,
): SnapshotFrom<M> {
  return machine.transition(snapshot, event, inertScope(machine).scope) as SnapshotFrom<M>;
}

/** The snapshot a machine starts in with `input`, executing nothing and starting no step. */
export function pureInitialSnapshot<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
): SnapshotFrom<M> {
  return machine.getInitialSnapshot(inertScope(machine).scope, input) as SnapshotFrom<M>;
}

/**
 * Like `pureTransition`, and also the events the machine processed on the way, in order: the
 * given event first, then any it raised (a step's result raised as the domain event).
 */
export function pureMacrostep<S extends AnyMachineSnapshot>(
  machine: AnyStateMachine,
  snapshot: S,
  event: EventObject,
): { snapshot: S; events: EventObject[] } {
  const inert = inertScope(machine);
  const events: EventObject[] = [];
  inert.recording = events;
  try {
    return { snapshot: machine.transition(snapshot, event, inert.scope) as S, events };
  } finally {
    inert.recording = undefined;
  }
}
