import type { AnyStateMachine, StateNode, TransitionDefinition } from 'xstate';

type AnyNode = StateNode<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type AnyTransition = TransitionDefinition<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Mermaid ids cannot hold `-`; the label keeps the real name. */
function mermaidId(node: { key: string }): string {
  return node.key.replace(/[^A-Za-z0-9_]/g, '_');
}

function guardLabel(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard && typeof guard.type === 'string') {
    const params = 'params' in guard ? guard.params : undefined;
    if (params && typeof params === 'object') return `${guard.type}(${Object.values(params).join(', ')})`;
    return guard.type;
  }
  return 'guard';
}

function edgeLines(node: AnyNode): string[] {
  const lines: string[] = [];
  for (const [eventType, transitions] of node.transitions) {
    // Invoke completions only translate a step's result into the named events below.
    if (eventType.startsWith('xstate.')) continue;
    const anyGuarded = transitions.some((t: AnyTransition) => t.guard !== undefined);
    for (const transition of transitions) {
      const target = transition.target?.[0] ?? node;
      const guard = guardLabel(transition.guard) ?? (anyGuarded ? 'else' : undefined);
      const label = guard ? `${eventType} [${guard}]` : eventType;
      lines.push(`${mermaidId(node)} --> ${mermaidId(target)} : ${label}`);
    }
  }
  return lines;
}

/**
 * A Mermaid `stateDiagram-v2` of a flat machine, read from its definition (states,
 * transitions with guards, invoked steps, initial and final states), never from the tables,
 * so the picture shows what the machine really does.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const nodes = Object.values(machine.root.states) as AnyNode[];
  const lines = ['stateDiagram-v2'];
  for (const node of nodes) {
    if (mermaidId(node) !== node.key) lines.push(`state "${node.key}" as ${mermaidId(node)}`);
  }
  const initial = machine.root.initial.target[0];
  if (initial) lines.push(`[*] --> ${mermaidId(initial)}`);
  for (const node of nodes) {
    lines.push(...edgeLines(node));
    for (const invoke of node.invoke) {
      lines.push(`${mermaidId(node)} : invokes ${typeof invoke.src === 'string' ? invoke.src : invoke.id}`);
    }
    if (node.type === 'final') lines.push(`${mermaidId(node)} --> [*]`);
  }
  return lines.map((line, i) => (i === 0 ? line : `  ${line}`)).join('\n') + '\n';
}
