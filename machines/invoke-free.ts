import { createMachine, type AnyStateMachine, type AnyStateNode } from 'xstate';

type StateConfig = Record<string, unknown> & {
  invoke?: unknown;
  on?: Record<string, unknown>;
  states?: Record<string, StateConfig>;
};

type InvokeConfig = { onDone?: unknown; onError?: unknown; onSnapshot?: unknown };

/** Machines that keep their invokes (see `invokeFree`), and the ones made without them. */
const made = new WeakMap<AnyStateMachine, AnyStateMachine>();

/**
 * The machine with every invoke's `onDone` and `onError` written as what xstate makes of them,
 * transitions on the `xstate.done.actor.<id>` and `xstate.error.actor.<id>` events, and the
 * invoke itself left out: the same states, transitions, guards and actions (the same config
 * objects and implementations), but entering a state spawns no actor. A pure evaluation of a
 * step's outcome (`pureMacrostep` on a restored snapshot) enters the next state, and its spawned
 * actor, which nothing starts, was a third of that evaluation's cost (xstate 5.33). Invoke ids
 * are the original machine's (xstate's defaults included). A machine with an `onSnapshot` invoke,
 * or an `on` that is not an object, is returned as it is.
 */
export function invokeFree(machine: AnyStateMachine): AnyStateMachine {
  let free = made.get(machine);
  if (!free) {
    const config = withoutInvokes(machine.config as StateConfig, machine.root);
    free = config ? (createMachine(config as never, machine.implementations) as AnyStateMachine) : machine;
    made.set(machine, free);
  }
  return free;
}

/** `config` (the config of `node`) and its substates without invokes; undefined when one cannot be. */
function withoutInvokes(config: StateConfig, node: AnyStateNode): StateConfig | undefined {
  const { invoke, states, ...rest } = config;
  const out: StateConfig = rest;
  if (invoke !== undefined) {
    if (config.on !== undefined && (typeof config.on !== 'object' || Array.isArray(config.on)))
      return undefined;
    const on: Record<string, unknown> = { ...config.on };
    const invokes = (Array.isArray(invoke) ? invoke : [invoke]) as InvokeConfig[];
    for (const [i, definition] of node.invoke.entries()) {
      const given = invokes[i];
      if (!given || given.onSnapshot !== undefined) return undefined;
      const done = `xstate.done.actor.${definition.id}`;
      const error = `xstate.error.actor.${definition.id}`;
      if (done in on || error in on) return undefined;
      if (given.onDone !== undefined) on[done] = given.onDone;
      if (given.onError !== undefined) on[error] = given.onError;
    }
    out.on = on;
  }
  if (states !== undefined) {
    const inner: Record<string, StateConfig> = {};
    for (const [key, child] of Object.entries(states)) {
      const stripped = node.states[key] && withoutInvokes(child, node.states[key]);
      if (!stripped) return undefined;
      inner[key] = stripped;
    }
    out.states = inner;
  }
  return out;
}
