import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import {
  browserMissing,
  launchBrowser,
  pageErrors,
  requestTrouble,
  waitShown,
} from '../../support/browser.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

const chroot = useZkChroot();

const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 0 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404' },
];

// Skipped only where Chromium is missing and could not be installed (the global setup says why), never in CI.
describe.skipIf(browserMissing())('bulk buttons and the search box in headless Chromium', () => {
  let ctx: QueueContext;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let trouble: string[];
  let base: string;
  let batch: { bid: string; jids: string[] };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    batch = await expandedBatch(ctx, [], { batchID: 'uuid-ui-bulk', erc_what: 'Bulk page batch' });
    await createJobs(ctx, batch.bid, [
      { ...objectSpec(0), identifiers: { primary_id: 'ark:/13030/m5uibulk', local_id: [] } },
      objectSpec(1),
      objectSpec(2),
    ]);
    batch.jids = (await ctx.zk.getChildren(`/batches/${batch.bid}/states/batch-processing`)).sort();
    for (const jid of batch.jids.slice(0, 2)) await driveJob(ctx, jid, TO_FAILED);
    app = createHttpApi(await apiDeps(ctx));
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    const tab = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    tab.setDefaultTimeout(30_000);
    page = await tab.newPage();
    errors = pageErrors(page);
    trouble = requestTrouble(page);
    await page.goto(`${base}/ui`);
    await page.locator('#token-input').fill(TOKEN);
    await page.locator('#token-input').press('Enter');
    await page.getByText('Token set for this browser session.').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("a batch page's Requeue all shows the dry run's count, changes nothing until confirmed, then requeues", async () => {
    await page.goto(`${base}/ui#/batches/${batch.bid}`);
    await waitShown(page, '#batch-bulk-title', trouble);
    const dialog = page.locator('#confirm');
    await page.locator('#bulk-requeue').click();
    await dialog.waitFor({ state: 'visible' });
    expect(await page.locator('#confirm-text').textContent()).toContain(
      `Requeue 2 jobs of batch ${batch.bid} in failed?`,
    );
    // The dry run touched nothing.
    for (const jid of batch.jids.slice(0, 2)) expect((await loadJob(ctx, jid)).status).toBe('failed');
    await page.locator('#confirm-cancel').click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await loadJob(ctx, batch.jids[0]!)).status).toBe('failed');

    await page.locator('#bulk-requeue').click();
    await dialog.waitFor({ state: 'visible' });
    await page.locator('#confirm-ok').click();
    await page.locator('#notice-text', { hasText: 'Requeue all: 2 jobs done.' }).waitFor();
    for (const jid of batch.jids.slice(0, 2)) expect((await loadJob(ctx, jid)).status).toBe('downloading');
    expect((await loadJob(ctx, batch.jids[2]!)).status).toBe('pending');
    expect(errors).toEqual([]);
  });

  it('the job list acts on the jobs its filter selects, and says so when nothing is left to do', async () => {
    await page.goto(`${base}/ui#/jobs?batch=${batch.bid}&state=pending`);
    await page.locator(`#jobs tr[data-jid="${batch.jids[2]!}"]`).waitFor();
    await page.locator('#bulk-hold').click();
    await page.locator('#confirm').waitFor({ state: 'visible' });
    expect(await page.locator('#confirm-text').textContent()).toContain(
      `Hold 1 job with batch ${batch.bid} and state pending in pending?`,
    );
    await page.locator('#confirm-ok').click();
    await page.locator('#notice-text', { hasText: 'Hold all: 1 job done.' }).waitFor();
    expect((await loadJob(ctx, batch.jids[2]!)).status).toBe('held');
    await page.locator('#bulk-hold').click();
    await page.locator('#notice-text', { hasText: 'Hold all: no job' }).waitFor();
    expect(await page.locator('#confirm').isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });

  it('the search box finds a job by its ARK and a batch by the start of its title', async () => {
    await page.locator('#search-input').fill('ark:/13030/m5uibulk');
    await page.locator('#search-input').press('Enter');
    const row = page.locator(`#search-results tr[data-id="${batch.jids[0]!}"][data-match="ark"]`);
    await row.waitFor();
    await row.getByRole('link', { name: batch.jids[0]! }).click();
    await page.locator('h1', { hasText: batch.jids[0]! }).waitFor();

    await page.locator('#search-input').fill('bulk page');
    await page.locator('#search-go').click();
    await page.locator(`#search-results tr[data-id="${batch.bid}"][data-match="title"]`).waitFor();
    expect(await page.locator('#search-summary').textContent()).toContain('1 match.');
    expect(errors).toEqual([]);
  });
});
