import type { AnyStateMachine, StateNode } from 'xstate';
import type { StateRow } from './states.js';
import type { GuardRef, TableEdge } from './table.js';

type AnyNode = StateNode<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What a flat machine says about itself, read off its definition: the one place that walks
 * `machine.root.states` (DESIGN.md §7). The lifecycle, the doctor, the dashboard, metrics and
 * bulk actions ask here, so none of them depends on how XState stores a machine.
 */

/** The machine's state nodes by name. */
function nodesOf(machine: AnyStateMachine): Record<string, AnyNode> {
  return machine.root.states as Record<string, AnyNode>;
}

/** A guard as a table names it; an inline guard function (never used here) is `inline`. */
function guardRefOf(guard: unknown): GuardRef | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return { type: guard };
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string') {
    const params = 'params' in guard ? guard.params : undefined;
    // Parameters computed from the event are not part of an edge.
    return params && typeof params === 'object'
      ? { type: guard.type, params: params as GuardRef['params'] }
      : { type: guard.type };
  }
  return { type: 'inline' };
}

/**
 * Every transition the machine defines, in definition order, as table edges (`to` is `from` for
 * a transition that stays; `trigger` is the transition's description, or its event). Invoke
 * completions (`xstate.*`) are left out: they only turn a step's result into a named event.
 */
export function machineEdges(machine: AnyStateMachine): TableEdge<string, string>[] {
  const edges: TableEdge<string, string>[] = [];
  for (const node of Object.values(nodesOf(machine))) {
    for (const [event, transitions] of node.transitions) {
      if (event.startsWith('xstate.')) continue;
      for (const transition of transitions) {
        const guard = guardRefOf(transition.guard);
        edges.push({
          from: node.key,
          event,
          to: transition.target?.[0]?.key ?? node.key,
          trigger: transition.description ?? event,
          ...(guard ? { guard } : {}),
        });
      }
    }
  }
  return edges;
}

/** The machine's states, in definition order. */
export function stateNames(machine: AnyStateMachine): string[] {
  return Object.keys(nodesOf(machine));
}

/** The machine's initial state. */
export function initialState(machine: AnyStateMachine): string | undefined {
  return machine.root.initial.target[0]?.key;
}

/** The states of type `final`, in definition order. */
export function finalStates(machine: AnyStateMachine): string[] {
  return Object.values(nodesOf(machine))
    .filter((node) => node.type === 'final')
    .map((node) => node.key);
}

/** The steps (actors) `state` invokes, in definition order. */
export function invokedSteps(machine: AnyStateMachine, state: string): string[] {
  return (nodesOf(machine)[state]?.invoke ?? []).map((invoke) =>
    typeof invoke.src === 'string' ? invoke.src : invoke.id,
  );
}

/** The states with a transition on `event` (guarded or not), in definition order. */
export function statesAccepting(machine: AnyStateMachine, event: string): string[] {
  return Object.values(nodesOf(machine))
    .filter((node) => (node.transitions.get(event)?.length ?? 0) > 0)
    .map((node) => node.key);
}

const recordsFailure = (action: unknown): boolean =>
  action === 'recordFailure' || (action as { type?: unknown } | null)?.type === 'recordFailure';

/**
 * Per state, the first event whose transition records a failure (`recordFailure`) and leaves the
 * state: Merritt's `fail()` edge of that state.
 */
export function failureEvents(machine: AnyStateMachine): Map<string, string> {
  const events = new Map<string, string>();
  for (const [state, node] of Object.entries(nodesOf(machine))) {
    for (const [type, transitions] of node.transitions) {
      const fails = transitions.some(
        (t) => t.actions.some(recordsFailure) && t.target?.some((target) => target !== node),
      );
      if (fails && !events.has(state)) events.set(state, type);
    }
  }
  return events;
}

/**
 * Where `event` leads out of `state`, per value of a guard parameter: for each edge on `event`
 * whose guard has an array parameter `param`, each value maps to the edge's target (the first
 * edge naming a value wins, as the machine tries them in order). The job lifecycle's requeue
 * table is read this way (`hasLastSuccessIn`'s `statuses`).
 */
export function targetsByGuardValue(
  machine: AnyStateMachine,
  state: string,
  event: string,
  param: string,
): Map<string, string> {
  const targets = new Map<string, string>();
  for (const edge of machineEdges(machine)) {
    if (edge.from !== state || edge.event !== event) continue;
    const values = edge.guard?.params?.[param];
    if (!Array.isArray(values)) continue;
    for (const value of values as readonly unknown[])
      if (!targets.has(String(value))) targets.set(String(value), edge.to);
  }
  return targets;
}

/**
 * The states among `states` with a transition that stays (no target, or itself) on a named event,
 * other than the events in `except`.
 */
export function statesThatStay(
  machine: AnyStateMachine,
  states: readonly string[],
  except: readonly string[] = [],
): string[] {
  const staying = new Set(
    machineEdges(machine).flatMap((edge) =>
      edge.to === edge.from && !except.includes(edge.event) ? [edge.from] : [],
    ),
  );
  return states.filter((state) => staying.has(state));
}

/**
 * Whatever in `table` does not describe `machine`: a state without a row or a row without a
 * state, a row's step other than what its state invokes, a `final` column other than the
 * machine's. Empty when they agree.
 */
export function tableProblems(machine: AnyStateMachine, table: readonly StateRow[]): string[] {
  const nodes = nodesOf(machine);
  const problems: string[] = [];
  const rows = new Set(table.map((row) => row.state));
  for (const state of Object.keys(nodes)) if (!rows.has(state)) problems.push(`state ${state} has no row`);
  if (rows.size !== table.length) problems.push('a state has two rows');
  for (const row of table) {
    const node = nodes[row.state];
    if (!node) {
      problems.push(`row ${row.state} names no state of the machine`);
      continue;
    }
    const steps = invokedSteps(machine, row.state);
    const expected = row.step === undefined ? [] : [row.step];
    if (steps.join() !== expected.join())
      problems.push(`state ${row.state} invokes [${steps.join()}], its row says [${expected.join()}]`);
    if ((node.type === 'final') !== (row.final === true))
      problems.push(
        `state ${row.state} is ${node.type === 'final' ? '' : 'not '}final, its row says otherwise`,
      );
  }
  return problems;
}
