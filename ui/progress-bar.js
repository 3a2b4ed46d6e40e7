import { h } from './dom.js';

// A batch's progress as one bar (issue 21): done, failed, in flight and waiting jobs as segments
// of plain HTML, sized by share. Which states each segment counts is the API's (derived from the
// lifecycle: final states, the failure edges' targets, working states, the rest).

const SEGMENTS = [
  ['done', 'done'],
  ['failed', 'failed'],
  ['inFlight', 'in flight'],
  ['waiting', 'waiting'],
];

/** The words a screen reader reads for a progress (`3 done, 1 failed, … of 10 jobs`). */
export function progressText(progress) {
  const parts = SEGMENTS.map(([key, label]) => `${progress[key] ?? 0} ${label}`);
  return `${parts.join(', ')} of ${progress.total} jobs`;
}

/** The bar; `compact` leaves out the legend (a table cell). */
export function progressBar(progress, { id, compact = false } = {}) {
  if (!progress) return h('span', { class: 'muted' }, '');
  const total = progress.total || 0;
  const bar = h(
    'div',
    {
      class: 'progress',
      id,
      role: 'img',
      'aria-label': progressText(progress),
      title: progressText(progress),
    },
    SEGMENTS.filter(([key]) => (progress[key] ?? 0) > 0).map(([key]) => {
      const part = h('span', {
        class: `progress-part progress-part--${key}`,
        'data-part': key,
        'data-count': String(progress[key]),
      });
      // Through the CSSOM: the dashboard's Content-Security-Policy refuses style attributes.
      part.style.width = `${((100 * progress[key]) / total).toFixed(3)}%`;
      return part;
    }),
  );
  if (compact) return bar;
  const legend = h(
    'ul',
    { class: 'progress-legend' },
    SEGMENTS.map(([key, label]) =>
      h(
        'li',
        { 'data-part': key },
        h('span', { class: `progress-swatch progress-part--${key}`, 'aria-hidden': 'true' }),
        `${label} ${progress[key] ?? 0}`,
      ),
    ),
  );
  return h('div', { class: 'progress-block' }, bar, legend);
}
