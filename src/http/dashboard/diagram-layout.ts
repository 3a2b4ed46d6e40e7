import type { StateRow, TableEdge } from '../../../machines/index.js';
import { laneEdges, selfEdges, straightEdges } from './diagram-edges.js';
import {
  GAP_X,
  GAP_Y,
  LABEL_ROOM,
  LANE,
  NODE_HEIGHT,
  NODE_WIDTH,
  PAD,
  TOP,
  round,
  type DiagramLayout,
  type LayoutEdge,
  type LayoutLabel,
  type Merged,
  type Side,
} from './diagram-types.js';

export {
  NODE_HEIGHT,
  NODE_WIDTH,
  type DiagramLayout,
  type LayoutEdge,
  type LayoutNode,
} from './diagram-types.js';

/**
 * A simple layered drawing of a lifecycle's transition table, for the dashboard: states in rows
 * from the initial state down (a state's row is the longest path of forward transitions to it),
 * transitions between neighbouring rows as straight arrows, and every other transition (back to
 * an earlier state, or skipping rows) routed through its own vertical lane beside the states.
 * Pure: the same table always gives the same picture.
 */

type Edge = TableEdge<string, string>;

function describe(edge: Edge): string {
  const params = edge.guard?.params ? `(${Object.values(edge.guard.params).join(', ')})` : '';
  const guard = edge.guard ? ` [${edge.guard.type}${params}]` : '';
  return `${edge.from} → ${edge.to}: ${edge.event}${guard}`;
}

/** Table edges between the same two states become one arrow (creation edges are left out). */
function mergeEdges(table: readonly Edge[]): Merged[] {
  const merged = new Map<string, Merged>();
  for (const edge of table) {
    if (edge.from === null) continue;
    const key = `${edge.from}\u0000${edge.to}`;
    const entry = merged.get(key) ?? { from: edge.from, to: edge.to, events: [], titles: [] };
    if (!entry.events.includes(edge.event)) entry.events.push(edge.event);
    entry.titles.push(describe(edge));
    merged.set(key, entry);
  }
  return [...merged.values()];
}

/** Edges that close a cycle, found by a depth-first walk from the initial state in table order. */
function backEdges(initial: string, states: readonly string[], edges: readonly Merged[]): Set<Merged> {
  const back = new Set<Merged>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string): void => {
    state.set(node, 'open');
    for (const edge of edges.filter((e) => e.from === node && e.to !== node)) {
      const seen = state.get(edge.to);
      if (seen === 'open') back.add(edge);
      else if (seen === undefined) visit(edge.to);
    }
    state.set(node, 'done');
  };
  visit(initial);
  for (const node of states) if (!state.has(node)) visit(node);
  return back;
}

/** Row of each state: the longest path of forward edges from a state without forward predecessors. */
function rows(states: readonly string[], forward: readonly Merged[]): Map<string, number> {
  const row = new Map<string, number>();
  const rowOf = (node: string, depth: number): number => {
    if (depth > states.length) return 0; // not reached: forward edges have no cycle
    const known = row.get(node);
    if (known !== undefined) return known;
    const preds = forward.filter((e) => e.to === node).map((e) => rowOf(e.from, depth + 1) + 1);
    const value = Math.max(0, ...preds);
    row.set(node, value);
    return value;
  };
  for (const node of states) rowOf(node, 0);
  return row;
}

/** Places the rows: each ordered by the mean x of its forward predecessors, then the states' order. */
function place(
  states: readonly string[],
  rowOf: Map<string, number>,
  forward: readonly Merged[],
  left: number,
): { centre: Map<string, { x: number; y: number }>; contentWidth: number; rowCount: number } {
  const rowCount = Math.max(0, ...rowOf.values()) + 1;
  const byRow = Array.from({ length: rowCount }, (_, r) => states.filter((s) => rowOf.get(s) === r));
  const widest = Math.max(...byRow.map((r) => r.length));
  const contentWidth = widest * NODE_WIDTH + (widest - 1) * GAP_X;
  const centre = new Map<string, { x: number; y: number }>();
  byRow.forEach((members, r) => {
    const weight = (s: string): number => {
      const xs = forward
        .filter((e) => e.to === s)
        .flatMap((e) => {
          const at = centre.get(e.from);
          return at ? [at.x] : [];
        });
      return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const ordered = [...members].sort(
      (a, b) => weight(a) - weight(b) || states.indexOf(a) - states.indexOf(b),
    );
    const rowWidth = ordered.length * NODE_WIDTH + (ordered.length - 1) * GAP_X;
    ordered.forEach((s, i) => {
      const x = left + (contentWidth - rowWidth) / 2 + i * (NODE_WIDTH + GAP_X) + NODE_WIDTH / 2;
      centre.set(s, { x, y: PAD + TOP + r * (NODE_HEIGHT + GAP_Y) + NODE_HEIGHT / 2 });
    });
  });
  return { centre, contentWidth, rowCount };
}

/**
 * The lanes of the edges that are not drawn straight, per side: a lane is on the side of the state
 * it enters (else of the state it leaves, else right), so that it never crosses the drawing;
 * shorter spans run inside longer ones.
 */
function assignLanes(
  laned: readonly Merged[],
  rowOf: ReadonlyMap<string, number>,
  probe: ReturnType<typeof place>,
): Record<Side, Merged[]> {
  const middle = probe.contentWidth / 2;
  const sideOf = (s: string): Side | undefined => {
    const x = probe.centre.get(s)?.x ?? middle;
    return x < middle - 1 ? 'left' : x > middle + 1 ? 'right' : undefined;
  };
  const span = (e: Merged): number => Math.abs((rowOf.get(e.to) ?? 0) - (rowOf.get(e.from) ?? 0));
  const lanes: Record<Side, Merged[]> = { left: [], right: [] };
  for (const e of laned) lanes[sideOf(e.to) ?? sideOf(e.from) ?? 'right'].push(e);
  for (const side of ['left', 'right'] as const) lanes[side].sort((a, b) => span(a) - span(b));
  return lanes;
}

/** Labels, each text shown once per state and side. */
function labeller(): (node: string, side: string, value: LayoutLabel) => LayoutLabel | undefined {
  const shown = new Set<string>();
  return (node, side, value) => {
    const key = `${node}\u0000${side}\u0000${value.text}`;
    if (shown.has(key)) return undefined;
    shown.add(key);
    return value;
  };
}

/** Lays out a lifecycle from its transition table and its state rows (in their documented order). */
export function layoutDiagram(
  table: readonly Edge[],
  stateRows: readonly Pick<StateRow, 'state' | 'final' | 'category'>[],
): DiagramLayout {
  const states = stateRows.map((row) => row.state);
  const initial = table.find((e) => e.from === null)?.to ?? states[0] ?? '';
  const edges = mergeEdges(table);
  const back = backEdges(initial, states, edges);
  const forward = edges.filter((e) => !back.has(e) && e.from !== e.to);
  const rowOf = rows(states, forward);
  const isStraight = (e: Merged): boolean =>
    !back.has(e) && e.from !== e.to && (rowOf.get(e.to) ?? 0) - (rowOf.get(e.from) ?? 0) === 1;
  // A first placement tells which side of the centre each state is on; the second leaves room for the lanes.
  const lanes = assignLanes(
    edges.filter((e) => e.from !== e.to && !isStraight(e)),
    rowOf,
    place(states, rowOf, forward, 0),
  );
  const left = PAD + LABEL_ROOM + lanes.left.length * LANE;
  const { centre, contentWidth, rowCount } = place(states, rowOf, forward, left);
  const at = (s: string): { x: number; y: number } => centre.get(s) ?? { x: 0, y: 0 };
  const label = labeller();
  const drawn: LayoutEdge[] = [
    ...straightEdges(edges.filter(isStraight), at, label),
    ...laneEdges(lanes.left, 'left', left - LANE, at, label),
    ...laneEdges(lanes.right, 'right', left + contentWidth + LANE, at, label),
    ...selfEdges(edges, at, label),
  ];
  const nodes = stateRows.map(({ state, final, category }) => ({
    state,
    row: rowOf.get(state) ?? 0,
    x: round(at(state).x - NODE_WIDTH / 2),
    y: round(at(state).y - NODE_HEIGHT / 2),
    initial: state === initial,
    final: final === true,
    category,
  }));
  const width = left + contentWidth + lanes.right.length * LANE + LABEL_ROOM + PAD;
  const height = PAD + TOP + rowCount * NODE_HEIGHT + (rowCount - 1) * GAP_Y + PAD;
  return { width: round(width), height: round(height), initial, nodes, edges: drawn };
}
