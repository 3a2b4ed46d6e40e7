/* global window, setTimeout, clearTimeout, uPlot */
import { getJson } from './api.js';
import { h } from './dom.js';

// The overview's live charts: the last hour of this server's own metrics (GET /metrics/history),
// drawn with uPlot (served by this server under /ui/vendor, no CDN). New samples are polled while
// the overview is shown; the states and steps come from the response, read from the lifecycle.

const HEIGHT = 220;
/** Distinct on white and for the common colour-vision deficiencies (Okabe–Ito, then greys). */
const PALETTE = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#d55e00',
  '#cc79a7',
  '#56b4e9',
  '#8a7a00',
  '#000000',
  '#7f7f7f',
  '#b3b3b3',
  '#5a3d8a',
  '#a6761d',
];
const colour = (i) => PALETTE[i % PALETTE.length];

/** What each chart plots from the samples: its series and, per series, a value of a sample. */
const CHARTS = [
  {
    id: 'throughput',
    title: 'Throughput (per minute, this server’s engine)',
    series: () => [
      { label: 'jobs completed', stroke: '#146c2e', value: (s) => s.rates.completed * 60 },
      { label: 'jobs failed', stroke: '#a4161a', value: (s) => s.rates.failed * 60 },
      { label: 'transitions', stroke: '#0b57a4', value: (s) => s.rates.transitions * 60 },
    ],
  },
  {
    id: 'depth',
    title: 'Jobs per state (whole queue)',
    // Final states only grow: hidden at first so the working states stay readable (click to show).
    series: (states) =>
      states.map(({ state, final }, i) => ({
        label: state,
        stroke: colour(i),
        show: !final,
        value: (s) => s.depth?.[state] ?? null,
      })),
  },
  {
    id: 'latency',
    title: 'Step latency (median per interval, seconds)',
    series: (states) =>
      states
        .filter((s) => s.step)
        .map(({ state, step }, i) => ({
          label: `${step} (${state})`,
          stroke: colour(i),
          value: (s) => s.latency[state]?.median ?? null,
        })),
  },
];

function emptyText(history) {
  if (!history) return 'Loading…';
  if (!history.sampling) return 'This server keeps no history: it runs no engine.';
  return `No samples yet: this server records one every ${history.intervalMs / 1000} s.`;
}

/** With the pointer off the chart, the legend shows the newest values instead of dashes. */
function showLatest(plot) {
  const count = plot.data[0].length;
  if (plot.cursor.idx == null && count > 0) plot.setLegend({ idx: count - 1 });
}

/** One chart: its figure, and an update that draws it once there are samples. */
function chart(spec, onResize) {
  const note = h('p', { class: 'muted chart-empty', id: `chart-${spec.id}-empty` }, emptyText());
  const plotArea = h('div', { class: 'chart-plot' });
  const figure = h(
    'figure',
    { class: 'chart', id: `chart-${spec.id}`, 'data-points': '0' },
    h('figcaption', {}, spec.title),
    note,
    plotArea,
  );
  let plot;
  let series;
  const width = () => Math.max(280, plotArea.clientWidth || figure.clientWidth - 24);
  const update = (history, samples) => {
    figure.setAttribute('data-points', String(samples.length));
    if (samples.length === 0 || typeof uPlot === 'undefined') {
      note.textContent =
        typeof uPlot === 'undefined' ? 'The chart library did not load.' : emptyText(history);
      return;
    }
    note.textContent = '';
    series ??= spec.series(history.states);
    const data = [samples.map((s) => s.at / 1000), ...series.map((one) => samples.map(one.value))];
    figure.setAttribute('data-last', JSON.stringify(data.slice(1).map((values) => values.at(-1))));
    if (plot) return plot.setData(data);
    plot = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        series: [
          {},
          ...series.map(({ label, stroke, show }) => ({
            label,
            stroke,
            width: 2,
            ...(show === false ? { show } : {}),
          })),
        ],
        scales: { y: { range: (_u, min, max) => [0, Math.max(max, min, 1)] } },
        axes: [{}, { size: 60 }],
        hooks: { setData: [showLatest], setCursor: [showLatest] },
      },
      data,
      plotArea,
    );
  };
  onResize(() => plot?.setSize({ width: width(), height: HEIGHT }));
  return { figure, update, dispose: () => plot?.destroy() };
}

/**
 * The charts section of the overview. `start()` reads the history and then the samples newer than
 * the last one, every few seconds; `dispose()` stops that (the view was left) and frees the charts.
 */
export function liveCharts() {
  const resizers = [];
  const charts = CHARTS.map((spec) => chart(spec, (resize) => resizers.push(resize)));
  const status = h('p', { class: 'muted', id: 'charts-status', role: 'status' });
  const element = h(
    'div',
    { class: 'charts', id: 'charts' },
    status,
    charts.map((c) => c.figure),
  );
  const onResize = () => resizers.forEach((resize) => resize());
  let history;
  let samples = [];
  let timer;
  let stopped = false;
  const poll = async () => {
    const since = samples.at(-1)?.at;
    try {
      const answer = await getJson(`/metrics/history${since === undefined ? '' : `?since=${since}`}`);
      if (stopped) return;
      history = answer;
      const oldest = Date.now() - answer.retainMs;
      samples = [...samples, ...answer.samples].filter((s) => s.at >= oldest);
      for (const c of charts) c.update(history, samples);
      status.textContent = '';
    } catch (err) {
      status.textContent = `Could not read the metrics history: ${err.message}`;
    }
    if (stopped) return;
    const every = Math.min(5000, Math.max(1000, (history?.intervalMs ?? 2000) / 2));
    timer = setTimeout(() => void poll(), every);
  };
  return {
    element,
    start() {
      window.addEventListener('resize', onResize);
      void poll();
    },
    dispose() {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener('resize', onResize);
      for (const c of charts) c.dispose();
    },
  };
}
