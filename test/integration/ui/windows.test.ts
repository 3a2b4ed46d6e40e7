import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { getWindow, putWindow } from '../../../src/queue/windows/store.js';
import { browserMissing, launchBrowser, pageErrors } from '../../support/browser.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

const chroot = useZkChroot();
/** The API's clock, fixed: Thursday 15 January 2026, noon in Los Angeles. */
const NOW = new Date('2026-01-15T20:00:00Z');

describe.skipIf(browserMissing())('maintenance windows on the dashboard (headless Chromium)', () => {
  let ctx: QueueContext;
  let api: RunningHttpApi;
  let browser: Browser;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect(), () => NOW);
    await ensureQueueTree(ctx.zk);
    await putWindow(ctx, 'weekly', {
      cron: '0 2 * * 0',
      duration: '2h',
      timezone: 'America/Los_Angeles',
      target: { queue: 'ingest' },
      reason: 'weekly maintenance',
    });
    api = await startHttpApi(await apiDeps(ctx), { port: 0 });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('shows each window with its next window in its own time zone, and skips it on request', async () => {
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(30_000);
    const errors = pageErrors(page);
    await page.goto(`${api.url}/ui`);
    const row = page.locator('#windows tr[data-window="weekly"]');
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('queue ingest');
    expect(text).toContain('0 2 * * 0 for 2h (America/Los_Angeles)');
    expect(text).toContain('idle');
    // Sunday 18 January 2026, 02:00 to 04:00 in Los Angeles.
    expect(text).toMatch(/Sun,? 18 Jan 2026,? 02:00:00 → Sun,? 18 Jan 2026,? 04:00:00/);
    expect(text).toContain('weekly maintenance');

    await page.locator('#token-input').fill(TOKEN);
    await page.locator('#token-input').press('Enter');
    await page.getByRole('button', { name: 'Skip weekly' }).click();
    expect(await page.locator('#confirm-text').textContent()).toContain('the next occurrence');
    await page.locator('#confirm-ok').click();
    await page.getByText('Skip window weekly: done').waitFor();
    // The next window shown is now the week after.
    await page.locator('#windows tr[data-window="weekly"]', { hasText: '25 Jan 2026' }).waitFor();
    expect((await getWindow(ctx, 'weekly')).window?.skip).toBe('2026-01-18T10:00:00.000Z');
    expect(errors).toEqual([]);
  });
});
