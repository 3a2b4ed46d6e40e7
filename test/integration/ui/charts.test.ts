import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { loadConfig } from '../../../src/config/config.js';
import { createHttpApi } from '../../../src/http/index.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { startService, type Service } from '../../../src/service.js';
import { MetricsHistory } from '../../../src/telemetry/metrics-history.js';
import { browserMissing, launchBrowser, pageErrors } from '../../support/browser.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps } from '../http/api-fixture.js';

const chroot = useZkChroot();
/** Written by every run: docs/ui.md shows it. */
const SCREENSHOTS = join(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots');
const SAMPLE_MS = 250;
const CHARTS = ['throughput', 'depth', 'latency'];

/** What a chart shows now: points, the last value of each series, and its canvas as an image. */
interface Drawn {
  points: number;
  last: (number | null)[];
  image: string;
}

async function drawn(page: Page, chart: string): Promise<Drawn> {
  return page.evaluate((id) => {
    // The page's own globals, typed here: the tests compile without the DOM library.
    const doc = (
      globalThis as unknown as {
        document: {
          getElementById(id: string): {
            getAttribute(name: string): string | null;
            querySelector(css: string): { toDataURL(): string } | null;
          } | null;
        };
      }
    ).document;
    const figure = doc.getElementById(`chart-${id}`);
    return {
      points: Number(figure?.getAttribute('data-points') ?? 0),
      last: JSON.parse(figure?.getAttribute('data-last') ?? '[]') as (number | null)[],
      image: figure?.querySelector('canvas')?.toDataURL() ?? '',
    };
  }, chart);
}

// Skipped only where Chromium is missing and could not be installed (the global setup says why), never in CI.
describe.skipIf(browserMissing())(
  'the overview’s live charts in headless Chromium (uPlot, served by mrtq)',
  () => {
    let service: Service;
    let dataDir: string;
    let ctx: QueueContext;
    let browser: Browser;
    let tab: BrowserContext;
    let page: Page;
    let errors: string[];
    const requests: string[] = [];

    beforeAll(async () => {
      ctx = queueContext(await chroot.connect());
      dataDir = mkdtempSync(join(tmpdir(), 'mrtq-ui-charts-'));
      const config = loadConfig({
        ...process.env,
        ZK_CONNECT: chroot.connectString(),
        MRTQ_DATA_DIR: dataDir,
      });
      browser = await launchBrowser();
      service = await startService(
        config,
        {
          steps: 'simulated',
          stepDelayMs: 250,
          httpPort: 0,
          sweepIntervalMs: 1000,
          metricsSampleMs: SAMPLE_MS,
        },
        pino({ level: 'silent' }),
      );
      tab = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      tab.setDefaultTimeout(30_000);
      page = await tab.newPage();
      page.on('request', (request) => requests.push(request.url()));
      errors = pageErrors(page);
      // The dashboard's policy allows only its own origin's scripts and styles: uPlot must fit it.
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) errors.push(message.text());
      });
      mkdirSync(SCREENSHOTS, { recursive: true });
    });

    afterAll(async () => {
      await browser?.close();
      await service?.stop(5000);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('says "no samples yet" before the first sample, and the page still works', async () => {
      // A real API whose history has no sample yet (its first would come in an hour).
      const app: FastifyInstance = createHttpApi(
        await apiDeps(ctx, {
          metricsHistory: new MetricsHistory(merrittJobLifecycle, { intervalMs: 3_600_000 }),
        }),
      );
      try {
        const base = await app.listen({ host: '127.0.0.1', port: 0 });
        const quiet = await tab.newPage();
        const quietErrors = pageErrors(quiet);
        await quiet.goto(`${base}/ui`);
        for (const chart of CHARTS)
          await quiet.locator(`#chart-${chart}-empty`, { hasText: 'No samples yet' }).waitFor();
        expect(await quiet.locator('#charts canvas').count()).toBe(0);
        await quiet.locator('#job-counts').waitFor();
        await quiet.close();
        expect(quietErrors).toEqual([]);
      } finally {
        await app.close();
      }
    });

    it('draws throughput, depth per state and step latency, moving while a batch runs', async () => {
      const base = service.httpUrl!;
      await page.goto(`${base}/ui`);
      // Samples come every 250 ms from the start of the service: the charts are drawn, idle.
      for (const chart of CHARTS) await page.locator(`#chart-${chart} canvas`).first().waitFor();
      expect(await page.evaluate(() => typeof (globalThis as { uPlot?: unknown }).uPlot)).toBe('function');

      await createBatch(ctx, {
        profile_name: 'demo',
        submitter: 'charts-test',
        // Enough jobs that the batch is still running through both reads below.
        payload_url: 'sim:40',
        type: 'manifest',
      });
      // First read: the engine is at work (transitions counted in the newest points).
      await expect
        .poll(async () => (await drawn(page, 'throughput')).last[2] ?? 0, { timeout: 30_000 })
        .toBeGreaterThan(0);
      // Step latencies are drawn while steps end (a point per interval): some step's median is
      // about the simulated 250 ms.
      await expect
        .poll(async () => (await drawn(page, 'latency')).last.some((v) => v !== null && v >= 0.2), {
          timeout: 30_000,
        })
        .toBe(true);
      const before = Object.fromEntries(
        await Promise.all(CHARTS.map(async (c) => [c, await drawn(page, c)] as const)),
      );
      await page
        .locator('section', { has: page.locator('#activity-title') })
        .screenshot({ path: join(SCREENSHOTS, 'overview-charts.png') });
      // Second read: more points, other values, another picture, on every chart.
      for (const chart of CHARTS) {
        await expect
          .poll(
            async () => {
              const now = await drawn(page, chart);
              return (
                now.points > before[chart]!.points &&
                now.image !== before[chart]!.image &&
                JSON.stringify(now.last) !== JSON.stringify(before[chart]!.last)
              );
            },
            { timeout: 30_000 },
          )
          .toBe(true);
      }

      // Nothing came from elsewhere: the page, its scripts (uPlot included) and styles, the API.
      const origin = new URL(base).origin;
      expect(new URL(base).hostname).toBe('127.0.0.1');
      expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
      expect(requests).toContain(`${origin}/ui/vendor/uPlot.iife.min.js`);
      expect(requests).toContain(`${origin}/ui/vendor/uPlot.min.css`);
      expect(errors).toEqual([]);
    });

    it('stops polling the history when the overview is left', async () => {
      const history = (): number => requests.filter((url) => url.includes('/metrics/history')).length;
      await page.goto(`${service.httpUrl!}/ui`);
      await page.locator('#chart-throughput canvas').first().waitFor();
      // The overview polls while it is shown…
      const shown = history();
      await expect.poll(history, { timeout: 15_000 }).toBeGreaterThan(shown);
      // …and not once it is left (the page stays loaded: only the view changes).
      await page.locator('[data-nav="batches"]').click();
      await page.locator('[data-nav="batches"][aria-current="page"]').waitFor();
      const left = history();
      // Long enough for three of the charts' polls (one a second at this sample interval), measured
      // by the service's own clock: a dozen new samples.
      const since = Date.now();
      await eventually(
        async () =>
          (await (await fetch(`${service.httpUrl!}/metrics/history?since=${since}`)).json()) as {
            samples: unknown[];
          },
        ({ samples }) => samples.length >= 12,
        30_000,
        250,
      );
      expect(history()).toBe(left);
      expect(errors).toEqual([]);
    });
  },
);
