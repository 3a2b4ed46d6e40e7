/* global document, Node, CSS */
// Small DOM helpers: elements are built with textContent, never from HTML strings, so that no
// value from the queue is ever interpreted as markup.

/** `h('a', { href: '#/jobs', class: 'x' }, 'text', child)`; `on: { click }` adds listeners. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'on')
      for (const [event, listener] of Object.entries(value)) element.addEventListener(event, listener);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces a region's content (a live refresh) without losing the keyboard's place: the focused
 * element comes back focused, found again by its id, else as the link to the same place.
 */
export function fill(container, ...children) {
  const focused = document.activeElement;
  const inside = focused && focused !== container && container.contains(focused);
  const id = inside ? focused.id : '';
  const href = inside ? focused.getAttribute('href') : null;
  container.replaceChildren();
  append(container, children);
  if (!inside) return;
  const again = id
    ? document.getElementById(id)
    : href
      ? container.querySelector(`a[href="${CSS.escape(href)}"]`)
      : null;
  again?.focus();
}

/** Each state's colour category, as GET /lifecycle gives it (the same as the diagrams'). */
const categories = new Map();

/** Learns the states' categories from GET /lifecycle's answer. */
export function learnCategories(lifecycles) {
  for (const name of ['job', 'batch', 'access'])
    for (const { state, category } of lifecycles?.[name]?.states ?? []) categories.set(state, category);
}

/**
 * How a state is coloured. `invalid` is no state of a lifecycle: an item whose status cannot be
 * read, shown as failed; a state not learnt (yet) as working.
 */
export function category(state) {
  if (state === 'invalid') return 'bad';
  return categories.get(state) ?? 'work';
}

export function badge(state, id) {
  return h('span', { class: `badge badge--${category(state)}`, id }, state);
}

/** A stored time: mrt-zk's `yyyy-MM-dd HH:mm:ss +0000` or ISO. */
export function parseTime(text) {
  if (typeof text !== 'string' || text === '') return undefined;
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(
    text.trim(),
  );
  const iso = match ? `${match[1]}T${match[2]}${zone(match[3])}` : text;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function zone(text) {
  if (!text || text === 'Z') return 'Z';
  return text.includes(':') ? text : `${text.slice(0, 3)}:${text.slice(3)}`;
}

/** `2026-05-01 09:34:25 UTC` */
export function formatTime(text) {
  const date = parseTime(text);
  return date ? `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC` : (text ?? '');
}

/** How long ago: `42 s`, `5 min`, `3 h`, `2 d`. */
export function age(text, now = Date.now()) {
  const date = parseTime(text);
  if (!date) return '';
  const seconds = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

/** A time element showing the stored time, with its age. */
export function when(text) {
  const date = parseTime(text);
  if (!date) return text ?? '';
  return h('time', { datetime: date.toISOString() }, `${formatTime(text)} (${age(text)} ago)`);
}

/**
 * A table: `columns` are `{ label, num? }`, each row an array of cells (text or nodes) and, when
 * it is an object `{ cells, attrs }`, attributes for the row (data-state…).
 */
export function table({ caption, columns, rows, empty, id }) {
  if (rows.length === 0) return h('p', { class: 'muted', id }, empty);
  const head = h(
    'tr',
    {},
    columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : undefined }, c.label)),
  );
  const body = rows.map((row) => {
    const { cells, attrs } = Array.isArray(row) ? { cells: row, attrs: {} } : row;
    return h(
      'tr',
      attrs,
      cells.map((cell, i) =>
        i === 0 && columns[0].rowHeader
          ? h('th', { scope: 'row' }, cell)
          : h('td', { class: columns[i]?.num ? 'num' : undefined }, cell),
      ),
    );
  });
  return h(
    'table',
    { id },
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, head),
    h('tbody', {}, body),
  );
}

/** A definition list of `[term, value]` pairs; pairs whose value is undefined are left out. */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, value]) => value !== undefined && value !== null && value !== '')
      .map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

export function section(title, id, ...children) {
  return h('section', { 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, title), children);
}
