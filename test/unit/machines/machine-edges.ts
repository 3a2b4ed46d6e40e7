import type { AnyStateMachine } from 'xstate';
import { machineEdges, type GuardRef, type TableEdge } from '../../../machines/index.js';

/** One transition written as `from --event [guard]--> to`, comparable across table and machine. */
export function edgeKey(from: string | null, event: string, to: string, guard?: GuardRef): string {
  const params = guard?.params ? `(${Object.values(guard.params).join(', ')})` : '';
  const guardText = guard ? ` [${guard.type}${params}]` : '';
  return `${from ?? '(none)'} --${event}${guardText}--> ${to}`;
}

/**
 * Every transition the machine defines, in definition order (read by machines/structure.ts).
 * An inline guard function is refused: every guard is named in setup, so tables can name it.
 */
export function machineEdgeKeys(machine: AnyStateMachine): string[] {
  return machineEdges(machine).map(({ from, event, to, guard }) => {
    if (guard?.type === 'inline')
      throw new Error('inline guard functions are not allowed: name every guard in setup');
    return edgeKey(from, event, to, guard);
  });
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
