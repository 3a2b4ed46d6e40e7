import type { Browser } from 'playwright-core';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thresholdsOf } from '../../../src/alerts/policy.js';
import type { AlertsReport } from '../../../src/alerts/report.js';
import { evaluateRules } from '../../../src/alerts/rules.js';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { browserMissing, launchBrowser, pageErrors } from '../../support/browser.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps } from '../http/api-fixture.js';

const chroot = useZkChroot();
const HOUR = 3_600_000;

/** An evaluation in which the queue stopped and a batch is old, the other rules quiet. */
function report(ctx: QueueContext): AlertsReport {
  const at = Date.now();
  const rules = evaluateRules(
    {
      at,
      ingest: { paused: false, waitingJobs: 12, waitingBatches: 0, lastMovedAt: at - HOUR },
      openBatches: [{ bid: 'bid0000000042', status: 'processing', createdAt: at - 30 * HOUR }],
      holds: [],
      retried: [],
      retriesRead: { jobs: 0, partial: false },
      engines: { registered: 1, gone: [], fewerSince: undefined },
    },
    thresholdsOf({ off: ['job_retries'] }),
  );
  const quantiles = { '0.5': 600, '0.9': 3000, '0.99': 3500, '1': 3600 };
  return {
    evaluatedAt: new Date(at).toISOString(),
    intervalMs: 30_000,
    policy: { value: { off: ['job_retries'] }, version: 3 },
    rules,
    stateAges: [{ state: ctx.lifecycle.initial, jobs: 12, read: 12, exact: true, quantiles }],
    failures: 0,
  };
}

describe.skipIf(browserMissing())('the alert rules on the dashboard (headless Chromium)', () => {
  let ctx: QueueContext;
  let api: RunningHttpApi;
  let browser: Browser;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk, ctx.lifecycle);
    const fixed = report(ctx);
    api = await startHttpApi(
      await apiDeps(ctx, { alerts: { registry: new Registry(), current: () => fixed } }),
      {
        port: 0,
      },
    );
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('lists each rule with its state, threshold and value, the items of a firing one, and the time in state', async () => {
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    const errors = pageErrors(page);
    await page.goto(`${api.url}/ui`);
    const stopped = page.locator('#alert-rules tr[data-rule="queue_stopped"]');
    await stopped.waitFor();
    expect(await stopped.getAttribute('data-firing')).toBe('true');
    const stoppedText = await stopped.textContent();
    expect(stoppedText).toContain('firing');
    expect(stoppedText).toContain('15 min');
    expect(stoppedText).toContain('60 min (since the last transition)');
    expect(stoppedText).toContain('12 jobs and 0 batches wait');

    const old = page.locator('#alert-rules tr[data-rule="batch_age"]');
    expect(await old.locator('a[href="#/batches/bid0000000042"]').count()).toBe(1);
    expect(await page.locator('#alert-rules tr[data-rule="job_retries"]').textContent()).toContain('off');
    expect(await page.locator('#alert-rules tr[data-rule="engine_gone"]').textContent()).toContain('ok');

    const ages = await page.locator(`#state-ages tr[data-state="${ctx.lifecycle.initial}"]`).textContent();
    expect(ages).toContain('10 min');
    expect(ages).toContain('60 min');
    expect(errors).toEqual([]);
  });
});
