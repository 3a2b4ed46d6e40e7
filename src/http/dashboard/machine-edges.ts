import type { AnyStateMachine, StateNode } from 'xstate';
import type { GuardRef, TableEdge } from '../../../machines/index.js';

type AnyNode = StateNode<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function guardRefOf(guard: unknown): GuardRef | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return { type: guard };
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string') {
    const params = 'params' in guard ? guard.params : undefined;
    return params && typeof params === 'object'
      ? { type: guard.type, params: params as GuardRef['params'] }
      : { type: guard.type };
  }
  return { type: 'guard' };
}

/**
 * Every transition a flat machine defines, read from its state nodes in definition order, as
 * edges a diagram can be drawn from: the lifecycle a queue runs is a runtime value, so its picture
 * comes from its machine, not from a table written beside Merritt's. Invoke completions
 * (`xstate.*`) are left out: they only turn a step's result into the named events below.
 */
export function machineEdges(machine: AnyStateMachine): TableEdge<string, string>[] {
  const edges: TableEdge<string, string>[] = [];
  for (const node of Object.values(machine.root.states) as AnyNode[]) {
    for (const [event, transitions] of node.transitions) {
      if (event.startsWith('xstate.')) continue;
      for (const transition of transitions) {
        const guard = guardRefOf(transition.guard);
        const to = transition.target?.[0]?.key ?? node.key;
        edges.push({
          from: node.key,
          event,
          to,
          trigger: transition.description ?? event,
          ...(guard ? { guard } : {}),
        });
      }
    }
  }
  return edges;
}
