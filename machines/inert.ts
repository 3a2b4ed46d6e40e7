import {
  createActor,
  type AnyStateMachine,
  type EventObject,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';

type MachineScope = Parameters<AnyStateMachine['transition']>[2];

/**
 * xstate's pure `transition()` builds a throwaway scope on every call: an actor of the whole
 * machine, an actor system, and the machine's initial snapshot (whose context factory throws
 * without input, so every call also built an Error with its stack). Measured on xstate 5.33,
 * that is two thirds of the cost of one transition. The scope is inert (it executes nothing and
 * starts no child), so one per machine serves every call; calls are synchronous and never
 * interleave.
 */
const scopes = new WeakMap<AnyStateMachine, MachineScope>();

function inertScope(machine: AnyStateMachine): MachineScope {
  const existing = scopes.get(machine);
  if (existing) return existing;
  const self = createActor(machine);
  const scope: MachineScope = {
    self,
    id: '',
    sessionId: '',
    system: self.system,
    defer: () => undefined,
    logger: () => undefined,
    stopChild: () => undefined,
    emit: () => undefined,
    actionExecutor: () => undefined,
  };
  scopes.set(machine, scope);
  return scope;
}

/** The snapshot after `event`, executing nothing (xstate's `transition` without its per-call scope). */
export function pureTransition<M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  event: EventObject,
): SnapshotFrom<M> {
  return machine.transition(snapshot, event, inertScope(machine)) as SnapshotFrom<M>;
}

/** The snapshot a machine starts in with `input`, executing nothing and starting no step. */
export function pureInitialSnapshot<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
): SnapshotFrom<M> {
  return machine.getInitialSnapshot(inertScope(machine), input) as SnapshotFrom<M>;
}

/**
 * Like `pureTransition`, and also the events the machine processed on the way, in order: the
 * given event first, then any it raised (a step's result raised as the domain event).
 */
export function pureMacrostep<M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  event: EventObject,
): { snapshot: SnapshotFrom<M>; events: EventObject[] } {
  const scope = inertScope(machine);
  const events: EventObject[] = [];
  // Every processed event, raised ones included, shows as a microstep of the scope's actor. The
  // observer is there only during this call: while the system has one, xstate builds an
  // inspection event for every microstep and actor, which `pureTransition` need not pay for.
  const recording = scope.system.inspect({
    next: (e) => {
      if (e.type === '@xstate.microstep' && e.actorRef === scope.self) events.push(e.event);
    },
  });
  try {
    return { snapshot: machine.transition(snapshot, event, scope) as SnapshotFrom<M>, events };
  } finally {
    recording.unsubscribe();
  }
}
