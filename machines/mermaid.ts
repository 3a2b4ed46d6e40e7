import type { AnyStateMachine } from 'xstate';
import { finalStates, initialState, invokedSteps, machineEdges, stateNames } from './structure.js';
import type { GuardRef, TableEdge } from './table.js';

/** Mermaid ids cannot hold `-`; the label keeps the real name. */
function mermaidId(state: string): string {
  return state.replace(/[^A-Za-z0-9_]/g, '_');
}

function guardLabel(guard: GuardRef | undefined): string | undefined {
  if (guard === undefined) return undefined;
  return guard.params ? `${guard.type}(${Object.values(guard.params).join(', ')})` : guard.type;
}

/** A state's edges: an unguarded edge among guarded ones on the same event is their `else`. */
function edgeLines(edges: readonly TableEdge<string, string>[]): string[] {
  const guardedEvents = new Set(edges.filter((e) => e.guard).map((e) => `${e.from}\u0000${e.event}`));
  return edges.map((edge) => {
    const guard =
      guardLabel(edge.guard) ?? (guardedEvents.has(`${edge.from}\u0000${edge.event}`) ? 'else' : undefined);
    const label = guard ? `${edge.event} [${guard}]` : edge.event;
    return `${mermaidId(edge.from ?? '')} --> ${mermaidId(edge.to)} : ${label}`;
  });
}

/**
 * A Mermaid `stateDiagram-v2` of a flat machine, read from its definition (states,
 * transitions with guards, invoked steps, initial and final states), never from the tables,
 * so the picture shows what the machine really does.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const states = stateNames(machine);
  const edges = machineEdges(machine);
  const finals = new Set(finalStates(machine));
  const lines = ['stateDiagram-v2'];
  for (const state of states)
    if (mermaidId(state) !== state) lines.push(`state "${state}" as ${mermaidId(state)}`);
  const initial = initialState(machine);
  if (initial) lines.push(`[*] --> ${mermaidId(initial)}`);
  for (const state of states) {
    lines.push(...edgeLines(edges.filter((edge) => edge.from === state)));
    for (const step of invokedSteps(machine, state)) lines.push(`${mermaidId(state)} : invokes ${step}`);
    if (finals.has(state)) lines.push(`${mermaidId(state)} --> [*]`);
  }
  return lines.map((line, i) => (i === 0 ? line : `  ${line}`)).join('\n') + '\n';
}
