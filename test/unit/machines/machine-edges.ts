import type { AnyStateMachine } from 'xstate';
import type { GuardRef, TableEdge } from '../../../machines/index.js';

/** One transition written as `from --event [guard]--> to`, comparable across table and machine. */
export function edgeKey(from: string | null, event: string, to: string, guard?: GuardRef): string {
  const params = guard?.params ? `(${Object.values(guard.params).join(', ')})` : '';
  const guardText = guard ? ` [${guard.type}${params}]` : '';
  return `${from ?? '(none)'} --${event}${guardText}--> ${to}`;
}

function guardRefOf(guard: unknown): GuardRef | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return { type: guard };
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string') {
    const params = 'params' in guard ? guard.params : undefined;
    // Parameters computed from the event are not part of the table.
    if (params && typeof params === 'object')
      return { type: guard.type, params: params as GuardRef['params'] };
    return { type: guard.type };
  }
  throw new Error('inline guard functions are not allowed: name every guard in setup');
}

/**
 * Every transition the machine defines, read from its state nodes, in definition order.
 * Invoke completions (`xstate.done.actor.*`, `xstate.error.actor.*`) are left out: they only
 * translate a step's result into a named event; the step tests cover them.
 */
export function machineEdgeKeys(machine: AnyStateMachine): string[] {
  const keys: string[] = [];
  for (const node of Object.values(machine.root.states)) {
    for (const [eventType, transitions] of node.transitions) {
      if (eventType.startsWith('xstate.')) continue;
      for (const transition of transitions) {
        const to = transition.target?.[0]?.key ?? node.key;
        keys.push(edgeKey(node.key, eventType, to, guardRefOf(transition.guard)));
      }
    }
  }
  return keys;
}

/** The table's transitions between existing states (creation edges left out), in table order. */
export function tableEdgeKeys(table: readonly TableEdge<string, string>[]): string[] {
  return table.filter((edge) => edge.from !== null).map((e) => edgeKey(e.from, e.event, e.to, e.guard));
}

/** The machine's own event types, without xstate's internal ones. */
export function machineEventTypes(machine: AnyStateMachine): string[] {
  const types = new Set(machine.root.events as string[]);
  return [...types].filter((type) => !type.startsWith('xstate.')).sort();
}
