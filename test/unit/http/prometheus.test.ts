import { describe, expect, it } from 'vitest';
import { Counters, formatPrometheus, Histograms, labelKey } from '../../../src/telemetry/prometheus.js';

describe('Prometheus text format', () => {
  it('writes HELP and TYPE before the samples of each family, labels quoted and escaped', () => {
    const text = formatPrometheus([
      {
        name: 'mrtq_jobs',
        help: 'Jobs per state.\nSecond line with a \\ backslash.',
        type: 'gauge',
        samples: [
          { labels: { state: 'pending' }, value: 3 },
          { labels: { state: 'odd "name"\\x\n' }, value: 0 },
        ],
      },
      { name: 'mrtq_up', help: 'Up.', type: 'gauge', samples: [{ value: 1 }] },
      {
        name: 'mrtq_ratio',
        help: 'Odd values.',
        type: 'gauge',
        samples: [{ value: Infinity }, { value: NaN }],
      },
    ]);
    expect(text).toBe(
      [
        '# HELP mrtq_jobs Jobs per state.\\nSecond line with a \\\\ backslash.',
        '# TYPE mrtq_jobs gauge',
        'mrtq_jobs{state="pending"} 3',
        'mrtq_jobs{state="odd \\"name\\"\\\\x\\n"} 0',
        '# HELP mrtq_up Up.',
        '# TYPE mrtq_up gauge',
        'mrtq_up 1',
        '# HELP mrtq_ratio Odd values.',
        '# TYPE mrtq_ratio gauge',
        'mrtq_ratio +Inf',
        'mrtq_ratio NaN',
        '',
      ].join('\n'),
    );
  });

  it('keeps counters per label set, whatever the order of the labels', () => {
    const counters = new Counters();
    counters.declare('mrtq_requests_total', 'Requests.');
    counters.declare('mrtq_never_total', 'Declared, never incremented.');
    counters.inc('mrtq_requests_total', { method: 'GET', status: '200' });
    counters.inc('mrtq_requests_total', { status: '200', method: 'GET' }, 2);
    counters.inc('mrtq_requests_total', { method: 'POST', status: '201' });
    expect(counters.toFamilies()).toEqual([
      {
        name: 'mrtq_requests_total',
        help: 'Requests.',
        type: 'counter',
        samples: [
          { labels: { method: 'GET', status: '200' }, value: 3 },
          { labels: { method: 'POST', status: '201' }, value: 1 },
        ],
      },
      { name: 'mrtq_never_total', help: 'Declared, never incremented.', type: 'counter', samples: [] },
    ]);
    expect(() => counters.inc('mrtq_unknown_total')).toThrow(/not declared/);
  });

  it('keeps histograms as cumulative buckets per label set, a value on a bound counted in it', () => {
    const histograms = new Histograms();
    histograms.declare('mrtq_step_seconds', 'Steps.', [0.1, 1, 10]);
    for (const value of [0.05, 0.1, 0.5, 1, 20])
      histograms.observe('mrtq_step_seconds', { state: 'a' }, value);
    histograms.observe('mrtq_step_seconds', { state: 'b' }, 2);
    const samples = histograms.toFamilies()[0]!.samples;
    const bucket = (state: string, le: string) =>
      samples.find((s) => s.suffix === '_bucket' && s.labels?.state === state && s.labels.le === le)?.value;
    expect([bucket('a', '0.1'), bucket('a', '1'), bucket('a', '10'), bucket('a', '+Inf')]).toEqual([
      2, 4, 4, 5,
    ]);
    expect([bucket('b', '0.1'), bucket('b', '1'), bucket('b', '10'), bucket('b', '+Inf')]).toEqual([
      0, 0, 1, 1,
    ]);
    expect(samples.find((s) => s.suffix === '_sum' && s.labels?.state === 'a')?.value).toBeCloseTo(21.65);
    expect(() => histograms.declare('mrtq_bad_seconds', 'Bad.', [1, 0.5])).toThrow(/ascend/);
  });

  it('gives a label set one key whatever the order of its labels, and different sets different keys', () => {
    expect(labelKey({ a: '1', b: '2' })).toBe(labelKey({ b: '2', a: '1' }));
    expect(labelKey({ a: '1', b: '2' })).not.toBe(labelKey({ a: '12' }));
    expect(labelKey({ a: 'x' })).not.toBe(labelKey({ b: 'x' }));
    expect(labelKey({})).toBe('');
  });
});
