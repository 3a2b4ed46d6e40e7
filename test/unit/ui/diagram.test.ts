import { describe, expect, it } from 'vitest';
import { lifecycles, lifecycleNames } from '../../../machines/index.js';
import { layoutDiagram, NODE_HEIGHT, NODE_WIDTH } from '../../../src/http/dashboard/diagram-layout.js';
import { escapeXml, renderDiagram } from '../../../src/http/dashboard/diagram-svg.js';
import { MERRITT_HAPPY_PATH } from '../../support/lifecycle-paths.js';

const layouts = lifecycleNames.map((name) => {
  const { table, rows, states } = lifecycles[name];
  return { name, table, states, layout: layoutDiagram(table, rows) };
});

describe('lifecycle diagrams laid out from the transition tables', () => {
  it.each(layouts)(
    '$name: every state once, inside the picture, no two overlapping',
    ({ states, layout }) => {
      expect(layout.nodes.map((n) => n.state)).toEqual([...states]);
      for (const n of layout.nodes) {
        expect(n.x).toBeGreaterThanOrEqual(0);
        expect(n.y).toBeGreaterThanOrEqual(0);
        expect(n.x + NODE_WIDTH).toBeLessThanOrEqual(layout.width);
        expect(n.y + NODE_HEIGHT).toBeLessThanOrEqual(layout.height);
      }
      for (const a of layout.nodes)
        for (const b of layout.nodes) {
          if (a === b) continue;
          const apart =
            a.x + NODE_WIDTH <= b.x ||
            b.x + NODE_WIDTH <= a.x ||
            a.y + NODE_HEIGHT <= b.y ||
            b.y + NODE_HEIGHT <= a.y;
          expect(apart, `${a.state} / ${b.state}`).toBe(true);
        }
    },
  );

  it.each(layouts)(
    '$name: one arrow per pair of states a table edge joins, carrying its events',
    ({ table, layout }) => {
      const expected = new Map<string, string[]>();
      for (const edge of table) {
        if (edge.from === null) continue;
        const key = `${edge.from} → ${edge.to}`;
        const events = expected.get(key) ?? [];
        if (!events.includes(edge.event)) events.push(edge.event);
        expected.set(key, events);
      }
      const drawn = new Map(layout.edges.map((e) => [`${e.from} → ${e.to}`, e.events]));
      expect(drawn).toEqual(expected);
      expect(layout.edges).toHaveLength(expected.size);
      // Every table edge, guard included, is in an arrow's tooltip.
      const titles = layout.edges.map((e) => e.title).join('\n');
      for (const edge of table.filter((e) => e.from !== null))
        expect(titles).toContain(`${edge.from} → ${edge.to}: ${edge.event}`);
    },
  );

  it('draws the job lifecycle top down: pending first, the steps in order, completed below notify', () => {
    const { layout } = layouts.find((l) => l.name === 'job')!;
    const row = (state: string) => layout.nodes.find((n) => n.state === state)!.row;
    expect(layout.initial).toBe('pending');
    expect(row('pending')).toBe(0);
    const steps = MERRITT_HAPPY_PATH.slice(1);
    steps.forEach((state, i) => expect(row(state)).toBe(i + 1));
    expect(layout.nodes.filter((n) => n.final).map((n) => n.state)).toEqual(['completed', 'deleted']);
    // Straight arrows join neighbouring rows only; back edges (requeue) and long ones use lanes.
    for (const e of layout.edges.filter((e) => e.kind === 'straight'))
      expect(row(e.to) - row(e.from)).toBe(1);
    const requeue = layout.edges.filter((e) => e.events.includes('admin.requeue'));
    expect(requeue).toHaveLength(7);
    expect(requeue.every((e) => e.kind === 'lane')).toBe(true);
    expect(layout.edges.find((e) => e.from === 'provisioning' && e.to === 'provisioning')?.kind).toBe('self');
    expect(requeue.find((e) => e.to === 'downloading')?.title).toBe(
      'failed → downloading: admin.requeue [hasLastSuccessIn(provisioning)]',
    );
  });

  it.each(layouts)('$name: each lane has its own vertical line', ({ layout }) => {
    const lanes = layout.edges
      .filter((e) => e.kind === 'lane')
      .map((e) => e.path.split(' ')[1]!.split(',')[0]);
    expect(new Set(lanes).size).toBe(lanes.length);
  });

  it('is the same picture every time', () => {
    const { table, rows } = lifecycles.batch;
    expect(layoutDiagram(table, rows)).toEqual(layoutDiagram(table, rows));
  });
});

describe('the SVG of a diagram', () => {
  const { layout } = layouts.find((l) => l.name === 'batch')!;

  it('shows the count of every state where a page can update it, and marks busy states', () => {
    const svg = renderDiagram(layout, {
      id: 'batch',
      title: 'Batch lifecycle',
      counts: { processing: 3, failed: 0 },
    });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('<title id="batch-title">Batch lifecycle</title>');
    expect(svg).toContain('data-count-for="processing">3</text>');
    expect(svg).toContain('data-count-for="failed">0</text>');
    expect(svg).toContain('data-count-for="pending"></text>');
    expect(svg).toMatch(/class="state state--work state--busy" data-state="processing"/);
    expect(svg).toContain('data-state="update-reporting"');
    expect(svg).not.toMatch(/style=/);
  });

  it('escapes text', () => {
    expect(escapeXml(`a<b>&"c'`)).toBe('a&#60;b&#62;&#38;&#34;c&#39;');
    const svg = renderDiagram(layout, { id: 'x"y', title: '<script>' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('id="x_y-title"');
  });
});
