import {
  LANE,
  NODE_HEIGHT,
  NODE_WIDTH,
  round,
  type At,
  type Label,
  type LayoutEdge,
  type Merged,
  type Side,
} from './diagram-types.js';

// How each kind of arrow of a lifecycle diagram is drawn (see diagram-layout.ts).

/** Spreads `count` attachment points around `middle`, `step` apart. */
const spread = (middle: number, index: number, count: number, step: number): number =>
  middle + (index - (count - 1) / 2) * step;

function base(e: Merged): Pick<LayoutEdge, 'from' | 'to' | 'events' | 'title'> {
  return { from: e.from, to: e.to, events: e.events, title: e.titles.join('\n') };
}

/** Neighbouring rows: bottom of one state to the top of the next, attachment points spread out. */
export function straightEdges(edges: readonly Merged[], at: At, label: Label): LayoutEdge[] {
  const x = (e: Merged, end: 'from' | 'to'): number => at(e[end]).x;
  const outs = (s: string) => edges.filter((e) => e.from === s).sort((a, b) => x(a, 'to') - x(b, 'to'));
  const ins = (s: string) => edges.filter((e) => e.to === s).sort((a, b) => x(a, 'from') - x(b, 'from'));
  return edges.map((e) => {
    const out = outs(e.from);
    const into = ins(e.to);
    const x1 = spread(at(e.from).x, out.indexOf(e), out.length, 18);
    const y1 = at(e.from).y + NODE_HEIGHT / 2;
    const x2 = spread(at(e.to).x, into.indexOf(e), into.length, 18);
    const y2 = at(e.to).y - NODE_HEIGHT / 2;
    const text = e.events.join(', ');
    return {
      ...base(e),
      kind: 'straight',
      path: `M${round(x1)},${round(y1)} L${round(x2)},${round(y2)}`,
      // Beside the arrow, on the side it leans to, so that two arrows fanning out keep their labels apart.
      label: label(e.from, `down-${e.to}`, {
        x: round((x1 + x2) / 2 + (x2 < x1 - 1 ? -6 : 6)),
        y: round((y1 + y2) / 2 + 4),
        anchor: x2 < x1 - 1 ? 'end' : 'start',
        text,
      }),
    };
  });
}

/** Lanes, innermost first: out of the side of one state, along the lane, into the side of the other. */
export function laneEdges(
  edges: readonly Merged[],
  side: Side,
  innermost: number,
  at: At,
  label: Label,
): LayoutEdge[] {
  const dir = side === 'left' ? -1 : 1;
  const ends = new Map<string, Merged[]>();
  for (const e of edges) {
    for (const node of [e.from, e.to]) ends.set(node, [...(ends.get(node) ?? []), e]);
  }
  const attach = (node: string, e: Merged, end: 'from' | 'to'): number => {
    const list = ends.get(node) ?? [];
    const index = list.indexOf(e) * 2 + (end === 'to' ? 1 : 0);
    const step = Math.min(7, (NODE_HEIGHT - 8) / Math.max(1, list.length * 2));
    return spread(at(node).y, index, list.length * 2, step);
  };
  return edges.map((e, lane) => {
    const laneX = innermost + dir * lane * LANE;
    const x1 = at(e.from).x + (dir * NODE_WIDTH) / 2;
    const y1 = attach(e.from, e, 'from');
    const x2 = at(e.to).x + (dir * NODE_WIDTH) / 2;
    const y2 = attach(e.to, e, 'to');
    const path =
      `M${round(x1)},${round(y1)} L${round(laneX)},${round(y1)} ` +
      `L${round(laneX)},${round(y2)} L${round(x2)},${round(y2)}`;
    const text = e.events.join(', ');
    const labelX = side === 'left' ? Math.min(x1, laneX) - 6 : Math.max(x1, laneX) + 6;
    return {
      ...base(e),
      kind: 'lane',
      path,
      label: label(e.from, side, {
        x: round(labelX),
        y: round(y1 + 4),
        anchor: side === 'left' ? 'end' : 'start',
        text,
      }),
    };
  });
}

/** A transition that stays: a small loop over the state's top right corner. */
export function selfEdges(edges: readonly Merged[], at: At, label: Label): LayoutEdge[] {
  return edges
    .filter((e) => e.from === e.to)
    .map((e) => {
      const { x, y } = at(e.from);
      const x1 = x + NODE_WIDTH / 2 - 24;
      const y1 = y - NODE_HEIGHT / 2;
      const x2 = x + NODE_WIDTH / 2;
      const y2 = y - NODE_HEIGHT / 2 + 12;
      const path = `M${round(x1)},${round(y1)} C${round(x1 + 4)},${round(y1 - 22)} ${round(x2 + 26)},${round(y2 - 14)} ${round(x2)},${round(y2)}`;
      return {
        ...base(e),
        kind: 'self',
        path,
        label: label(e.from, 'self', {
          x: round(x2 + 10),
          y: round(y1 - 4),
          anchor: 'start',
          text: e.events.join(', '),
        }),
      };
    });
}
