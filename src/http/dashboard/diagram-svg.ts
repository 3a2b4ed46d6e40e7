import { NODE_HEIGHT, NODE_WIDTH, type DiagramLayout, type LayoutNode } from './diagram-layout.js';

/** Text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface DiagramOptions {
  /** Unique within a page that shows several diagrams (marker and title ids). */
  id: string;
  title: string;
  /** Items per state; a state without a count shows none. */
  counts?: Readonly<Record<string, number>>;
}

function nodeSvg(node: LayoutNode, count: number | undefined): string {
  const classes = ['state', `state--${node.category}`];
  if (node.final) classes.push('state--final');
  if (count !== undefined && count > 0) classes.push('state--busy');
  const cx = node.x + NODE_WIDTH / 2;
  const inner = node.final
    ? `<rect class="state-inner" x="${node.x + 3}" y="${node.y + 3}" width="${NODE_WIDTH - 6}" height="${NODE_HEIGHT - 6}" rx="5"/>`
    : '';
  const shown = count === undefined ? '' : String(count);
  return (
    `<g class="${classes.join(' ')}" data-state="${escapeXml(node.state)}">` +
    `<title>${escapeXml(node.state)}${count === undefined ? '' : `: ${count}`}</title>` +
    `<rect x="${node.x}" y="${node.y}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="7"/>${inner}` +
    `<text class="state-name" x="${cx}" y="${node.y + 18}" text-anchor="middle">${escapeXml(node.state)}</text>` +
    `<text class="state-count" x="${cx}" y="${node.y + 35}" text-anchor="middle" data-count-for="${escapeXml(node.state)}">${shown}</text>` +
    `</g>`
  );
}

/**
 * The SVG of a laid-out lifecycle: states with their current counts (`data-count-for` lets a page
 * update them in place), transitions as arrows with their event names, a tooltip per arrow
 * listing its table edges with guards. Styling comes from the page's stylesheet (classes only,
 * no inline styles, so a strict Content-Security-Policy holds).
 */
export function renderDiagram(layout: DiagramLayout, options: DiagramOptions): string {
  const id = options.id.replace(/[^A-Za-z0-9_-]/g, '_');
  const marker = `arrow-${id}`;
  const initial = layout.nodes.find((n) => n.initial);
  const start = initial
    ? `<circle class="initial" cx="${initial.x + NODE_WIDTH / 2}" cy="${initial.y - 22}" r="6"/>` +
      `<path class="edge" d="M${initial.x + NODE_WIDTH / 2},${initial.y - 16} L${initial.x + NODE_WIDTH / 2},${initial.y}" marker-end="url(#${marker})"/>`
    : '';
  const edges = layout.edges.map(
    (edge) =>
      `<g class="transition transition--${edge.kind}" data-from="${escapeXml(edge.from)}" data-to="${escapeXml(edge.to)}">` +
      `<title>${escapeXml(edge.title)}</title><path class="edge" d="${edge.path}" marker-end="url(#${marker})"/></g>`,
  );
  // Labels after the states, so that no state box covers one.
  const labels = layout.edges.flatMap((edge) =>
    edge.label
      ? [
          `<text class="edge-label" x="${edge.label.x}" y="${edge.label.y}" text-anchor="${edge.label.anchor}">` +
            `<title>${escapeXml(edge.title)}</title>${escapeXml(edge.label.text)}</text>`,
        ]
      : [],
  );
  const nodes = layout.nodes.map((node) => nodeSvg(node, options.counts?.[node.state]));
  const states = layout.nodes.map((n) => n.state).join(', ');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="diagram" viewBox="0 0 ${layout.width} ${layout.height}" ` +
    `width="${layout.width}" height="${layout.height}" role="img" aria-labelledby="${id}-title ${id}-desc">` +
    `<title id="${id}-title">${escapeXml(options.title)}</title>` +
    `<desc id="${id}-desc">${escapeXml(`States: ${states}. Counts show the items in each state now.`)}</desc>` +
    `<defs><marker id="${marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
    `<path class="arrow-head" d="M0,0 L10,5 L0,10 z"/></marker></defs>` +
    `${start}<g class="transitions">${edges.join('')}</g><g class="states">${nodes.join('')}</g>` +
    `<g class="edge-labels">${labels.join('')}</g></svg>`
  );
}
