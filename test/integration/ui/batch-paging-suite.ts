import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { browserMissing, launchBrowser, pageErrors } from '../../support/browser.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps } from '../http/api-fixture.js';

const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 0 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404' },
];
const SCREENSHOTS = join(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots');
const FAILED = 3;
const PRIORITIES = [5, 2, 8];

/**
 * The batch page of a large batch in headless Chromium (issue 21, items 3 and 4): page 1 of its
 * jobs, the next page and back, sorting by a column header, the progress bar, the batch list's
 * bars and the totals view. `count` jobs in one batch, `size` jobs a page; the time from opening
 * the page to its first page drawn is printed. With `screenshots`, it writes
 * docs/screenshots/batch-paged.png and totals.png.
 */
export function describeBatchPaging(
  count: number,
  size: number,
  deadline: number,
  screenshots = false,
): void {
  const chroot = useZkChroot();

  describe.skipIf(browserMissing())(`the batch page of a ${count.toLocaleString('en')}-job batch`, () => {
    let ctx: QueueContext;
    let app: FastifyInstance;
    let browser: Browser;
    let page: Page;
    let errors: string[];
    let base: string;
    let bid: string;
    let jids: string[];

    beforeAll(async () => {
      ctx = queueContext(await chroot.connect());
      await ensureQueueTree(ctx.zk);
      const started = Date.now();
      const specs = Array.from({ length: count }, (_, i) => objectSpec(i, {}, PRIORITIES[i % 3]));
      ({ bid, jids } = await expandedBatch(ctx, specs));
      jids.sort();
      for (const jid of jids.slice(-FAILED)) await driveJob(ctx, jid, TO_FAILED);
      console.log(`created ${count} jobs in ${Date.now() - started} ms`);
      app = createHttpApi(await apiDeps(ctx));
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      browser = await launchBrowser();
      const tab = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      tab.setDefaultTimeout(30_000);
      page = await tab.newPage();
      errors = pageErrors(page);
    }, deadline);

    afterAll(async () => {
      await browser?.close();
      await app?.close();
    });

    const rows = () => page.locator('#jobs-processing tbody tr');
    const firstJid = () => rows().first().getAttribute('data-jid');
    const shownJids = async (): Promise<string[]> => {
      const all = await rows().all();
      return Promise.all(all.map(async (row) => (await row.getAttribute('data-jid')) ?? ''));
    };

    it(
      'shows page 1 of the jobs and a progress bar, pages forward and back, and sorts by a column',
      async () => {
        // Opened cold (the page and its modules load), then again from another view of the loaded app.
        let opened = Date.now();
        await page.goto(`${base}/ui#/batches/${bid}?size=${size}`);
        await page.locator(`#jobs-processing tbody tr[data-jid="${jids[0]!}"]`).waitFor();
        const cold = Date.now() - opened;
        await page.goto(`${base}/ui#/access`);
        await page.locator('h1', { hasText: 'Access' }).waitFor();
        opened = Date.now();
        await page.evaluate(
          (hash) => ((globalThis as unknown as { location: { hash: string } }).location.hash = hash),
          `#/batches/${bid}?size=${size}`,
        );
        await page.locator(`#jobs-processing tbody tr[data-jid="${jids[0]!}"]`).waitFor();
        console.log(
          `batch page of ${count} jobs, first page drawn: ${cold} ms after opening the dashboard there, ` +
            `${Date.now() - opened} ms after following a link to it`,
        );
        const processing = count - FAILED;
        expect(await shownJids()).toEqual(jids.slice(0, size));
        expect(await page.locator('#folder-processing').textContent()).toBe(`Processing (${processing})`);
        expect(await page.locator('#pager-processing').textContent()).toContain(
          `page 1: 1–${size} of ${processing}`,
        );
        // The bar: every job but the failed ones waits (pending), the failed ones in red.
        const part = (name: string) => page.locator(`#progress [data-part="${name}"]`);
        expect(await part('waiting').getAttribute('data-count')).toBe(String(processing));
        expect(await part('failed').getAttribute('data-count')).toBe(String(FAILED));
        expect(await part('done').count()).toBe(0);
        expect(await page.locator('#progress').getAttribute('aria-label')).toBe(
          `0 done, ${FAILED} failed, 0 in flight, ${processing} waiting of ${count} jobs`,
        );
        expect(await page.locator('#jobs-failed tbody tr').count()).toBe(FAILED);

        await page.locator('#pager-processing button[rel="next"]').click();
        await page.locator(`#jobs-processing tbody tr[data-jid="${jids[size]!}"]`).waitFor();
        expect(await shownJids()).toEqual(jids.slice(size, 2 * size));
        expect(await page.locator('#pager-processing').textContent()).toContain(`page 2: ${size + 1}–`);
        await page.locator('#pager-processing button[rel="prev"]').click();
        await page.locator(`#jobs-processing tbody tr[data-jid="${jids[0]!}"]`).waitFor();
        if (screenshots) {
          await page.locator('#batch-progress-title').scrollIntoViewIfNeeded();
          await page.mouse.wheel(0, -10_000);
          await page.screenshot({ path: join(SCREENSHOTS, 'batch-paged.png') });
        }

        // Job descending: the newest processing job first.
        await page.locator('#jobs-processing th button[data-sort="created"]').click();
        const newest = jids[count - FAILED - 1]!;
        await page.locator(`#jobs-processing tbody tr[data-jid="${newest}"]`).waitFor();
        expect(await firstJid()).toBe(newest);
        expect(await page.locator('#jobs-processing th[aria-sort="descending"]').count()).toBe(1);
        // Priority ascending: every job shown has the lowest priority, in jid order.
        await page.locator('#jobs-processing th button[data-sort="priority"]').click();
        await page.locator(`#jobs-processing tbody tr[data-jid="${jids[1]!}"]`).waitFor();
        const lowest = jids.slice(0, count - FAILED).filter((_, i) => PRIORITIES[i % 3] === 2);
        expect(await shownJids()).toEqual(lowest.slice(0, size));
        await page.locator('#pager-processing button[rel="next"]').click();
        await page.locator(`#jobs-processing tbody tr[data-jid="${lowest[size]!}"]`).waitFor();
        expect(await shownJids()).toEqual(lowest.slice(size, 2 * size));
        expect(errors).toEqual([]);
      },
      deadline,
    );

    it(
      'the batch list shows the batch with its bar, and Totals counts its collection',
      async () => {
        await page.goto(`${base}/ui#/batches`);
        const bar = page.locator(`#batches tr[data-bid="${bid}"] .progress`);
        await bar.waitFor();
        expect(await bar.locator('[data-part="failed"]').getAttribute('data-count')).toBe(String(FAILED));
        await page.locator('a[data-nav="rollups"]').click();
        const row = page.locator('#rollups tr[data-key="demo"]');
        await row.waitFor();
        expect(await row.locator('[data-state="pending"]').textContent()).toBe(String(count - FAILED));
        expect(await row.locator('[data-state="failed"]').textContent()).toBe(String(FAILED));
        expect(await row.textContent()).toContain(jids[0]!); // the oldest waiting job
        if (screenshots) await page.screenshot({ path: join(SCREENSHOTS, 'totals.png') });
        expect(errors).toEqual([]);
      },
      deadline,
    );
  });
}
