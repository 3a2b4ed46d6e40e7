import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { startService, type Service } from '../../../src/service.js';
import type { HistorySample } from '../../../src/telemetry/metrics-history.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

interface History {
  sampling: boolean;
  intervalMs: number;
  retainMs: number;
  states: { state: string; final: boolean; step?: string }[];
  samples: HistorySample[];
}

const sum = <T>(items: readonly T[], pick: (item: T) => number): number =>
  items.reduce((total, item) => total + pick(item), 0);

describe('GET /metrics/history on a real `mrtq serve` (simulated steps)', () => {
  let service: Service;
  let dataDir: string;
  let base: string;
  const get = async <T>(path: string): Promise<{ status: number; type: string; body: T }> => {
    const res = await fetch(base + path);
    const type = res.headers.get('content-type') ?? '';
    const text = await res.text();
    return { status: res.status, type, body: (type.includes('json') ? JSON.parse(text) : text) as T };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrtq-metrics-history-'));
    const config = loadConfig({ ...process.env, ZK_CONNECT: chroot.connectString(), MRTQ_DATA_DIR: dataDir });
    service = await startService(
      config,
      { steps: 'simulated', stepDelayMs: 50, httpPort: 0, sweepIntervalMs: 1000, metricsSampleMs: 200 },
      pino({ level: 'silent' }),
    );
    base = service.httpUrl!;
  });

  afterAll(async () => {
    await service?.stop(5000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('samples throughput, depth per state and step latency while a batch runs, and pages by `since`', async () => {
    const first = await get<History>('/metrics/history');
    expect(first.status).toBe(200);
    expect(first.body.sampling).toBe(true);
    expect(first.body.intervalMs).toBe(200);
    expect(first.body.retainMs).toBe(3_600_000);
    // The states are the lifecycle's, in table order, with the step each working state runs.
    expect(first.body.states.map((s) => s.state)).toContain('completed');
    expect(first.body.states.find((s) => s.state === 'completed')?.final).toBe(true);
    expect(first.body.states.find((s) => s.state === 'downloading')?.step).toBe('download');

    const { bid } = await createBatch(queueContext(await chroot.connect()), {
      profile_name: 'demo',
      submitter: 'metrics-history-test',
      payload_url: 'sim:4',
      type: 'manifest',
    });
    expect(bid).toMatch(/^bid/);

    // Every job completes: the samples since the test began count four of them, with latencies.
    const all = await eventually(
      async () => (await get<History>('/metrics/history')).body.samples,
      (samples) => sum(samples, (s) => s.counts.completed) === 4,
      30_000,
      200,
    );
    expect(sum(all, (s) => s.counts.failed)).toBe(0);
    // Eight transitions take a job from pending to completed; the batch's own come on top.
    expect(sum(all, (s) => s.counts.transitions)).toBeGreaterThanOrEqual(4 * 8);
    const downloads = all.flatMap((s) => (s.latency.downloading ? [s.latency.downloading] : []));
    expect(sum(downloads, (l) => l.count)).toBe(4);
    for (const l of downloads) expect(l.median).toBeGreaterThanOrEqual(0.04);
    // Some sample saw jobs in the queue, and the newest sees all four completed.
    expect(all.some((s) => Object.values(s.depth ?? {}).some((n) => n > 0))).toBe(true);
    await eventually(
      async () => (await get<History>('/metrics/history')).body.samples.at(-1)?.depth?.completed,
      (completed) => completed === 4,
      10_000,
      200,
    );
    for (const s of all) {
      expect(s.rates.completed).toBeCloseTo(s.seconds > 0 ? s.counts.completed / s.seconds : 0, 6);
      expect(JSON.stringify(s)).not.toContain('null');
    }

    // `since` answers only newer samples, oldest first.
    const middle = all[Math.floor(all.length / 2)]!.at;
    const newer = (await get<History>(`/metrics/history?since=${middle}`)).body.samples;
    expect(newer.length).toBeGreaterThan(0);
    expect(newer.every((s) => s.at > middle)).toBe(true);
    expect(newer.map((s) => s.at)).toEqual([...newer.map((s) => s.at)].sort((a, b) => a - b));
    expect((await get(`/metrics/history?since=soon`)).status).toBe(400);
  });

  it('is described in the OpenAPI document', async () => {
    const { body } = await get<{ paths: Record<string, { get?: { parameters?: { name: string }[] } }> }>(
      '/openapi.json',
    );
    const route = body.paths['/metrics/history']?.get;
    expect(route).toBeDefined();
    expect(route?.parameters?.map((p) => p.name)).toContain('since');
    expect(JSON.stringify(route)).toContain('latency');
  });

  it('serves the chart library from the installed package under /ui/vendor, and nothing else of it', async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('uplot'));
    const script = await get<string>('/ui/vendor/uPlot.iife.min.js');
    expect(script.status).toBe(200);
    expect(script.type).toMatch(/javascript/);
    expect(script.body).toBe(readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'));
    const css = await get<string>('/ui/vendor/uPlot.min.css');
    expect(css.status).toBe(200);
    expect(css.type).toMatch(/text\/css/);
    expect((await get('/ui/vendor/uPlot.esm.js')).status).toBe(404);
    expect((await get('/ui/vendor/../../package.json')).status).toBe(404);
    // The dashboard page loads both.
    const page = await get<string>('/ui');
    expect(page.body).toContain('/ui/vendor/uPlot.iife.min.js');
    expect(page.body).toContain('/ui/vendor/uPlot.min.css');
  });
});
