/**
 * Memoises a machine builder per initial state. Restoring an item at a stored state builds
 * the machine with that state as `initial`, because an actor started from a `resolveState`
 * snapshot does not start the state's invoked step, while entering the state does
 * (measured on xstate 5.33). Each variant has the same definition apart from `initial`.
 */
export function byInitialState<S extends string, M>(build: (initial: S) => M): (state: S) => M {
  const machines = new Map<S, M>();
  return (state) => {
    let machine = machines.get(state);
    if (!machine) {
      machine = build(state);
      machines.set(state, machine);
    }
    return machine;
  };
}
