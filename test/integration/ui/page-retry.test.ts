import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { browserMissing, launchBrowser } from '../../support/browser.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';

const chroot = useZkChroot();

// Skipped only where Chromium is missing and could not be installed (the global setup says why), never in CI.
describe.skipIf(browserMissing())('a dashboard page that failed to load', () => {
  let ctx: QueueContext;
  let app: FastifyInstance;
  let browser: Browser;
  let bid: string;
  let base: string;
  let jid: string;
  /** Answers of GET /batches/<bid> to refuse with this status, one per request. */
  const refusals: number[] = [];
  /** Requests for GET /batches/<bid> so far. */
  let asked = 0;
  /** Requests for GET /batches/<bid> to leave unanswered. */
  let toHold = 0;
  /** Actions (POST) to leave unanswered. */
  let postsToHold = 0;
  /** The requests left unanswered so far: each answered 503 when released (at the end). */
  const held: (() => void)[] = [];
  const leaveUnanswered = async (reply: FastifyReply) => {
    await new Promise<void>((release) => held.push(release));
    return reply.code(503).send({ error: 'UNAVAILABLE', message: 'held by the test' });
  };
  /** A page whose requests wait 2 s for their answer (the dashboard's deadline is 30 s). */
  const pageWithShortDeadline = async () => {
    const page = await (await browser.newContext()).newPage();
    await page.addInitScript(() => {
      (globalThis as { mrtqAnswerWithinMs?: number }).mrtqAnswerWithinMs = 2000;
    });
    return page;
  };
  /** Enters the API token on `page`, so its actions are sent with it. */
  const enterToken = async (page: Page) => {
    await page.locator('#token-input').fill(TOKEN);
    await page.locator('#token-input').press('Enter');
  };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    ({ bid } = await expandedBatch(ctx, [], { batchID: 'uuid-ui-retry', erc_what: 'Retry page batch' }));
    jid = (await createJobs(ctx, bid, [objectSpec(0)])).created[0]!.jid;
    app = createHttpApi(await apiDeps(ctx));
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'POST' && postsToHold > 0) {
        postsToHold--;
        return leaveUnanswered(reply);
      }
      if (!request.url.startsWith(`/batches/${bid}?`)) return;
      asked++;
      if (toHold > 0) {
        toHold--;
        return leaveUnanswered(reply);
      }
      if (refusals.length > 0) {
        const status = refusals.shift()!;
        await reply
          .code(status)
          .send({ error: status === 503 ? 'UNAVAILABLE' : 'NOT_FOUND', message: 'refused by the test' });
      }
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const release of held) release();
    await browser?.close();
    await app?.close();
  });

  it('is asked again after a transient failure (5xx) and comes up by itself', async () => {
    const page = await (await browser.newContext()).newPage();
    refusals.push(503);
    await page.goto(`${base}/ui#/batches/${bid}`);
    await page.locator('#load-error').waitFor({ timeout: 15_000 });
    expect(await page.locator('#load-error').textContent()).toContain('503');
    await page.locator('#batch-bulk-title').waitFor({ timeout: 30_000 });
    expect(refusals).toEqual([]);
    await page.close(); // a shown batch page asks for its batch again on every refresh
  });

  it('stays on a refusal (4xx): asking again would get the same answer', async () => {
    const page = await (await browser.newContext()).newPage();
    refusals.push(...Array.from({ length: 10 }, () => 404));
    await page.goto(`${base}/ui#/batches/${bid}`);
    await page.locator('#load-error').waitFor({ timeout: 15_000 });
    const before = asked;
    // Longer than the retry delay: a transient failure would have been asked again by now.
    await page.waitForTimeout(4500);
    expect(asked).toBe(before);
    refusals.length = 0;
    expect(await page.locator('#load-error').textContent()).toContain('404');
  });

  it('gives up on a request that gets no answer, then asks again', async () => {
    const page = await pageWithShortDeadline();
    toHold = 1;
    await page.goto(`${base}/ui#/batches/${bid}`);
    await page.locator('#load-error').waitFor({ timeout: 15_000 });
    expect(await page.locator('#load-error').textContent()).toBe('no answer from the server within 2 s');
    await page.locator('#batch-bulk-title').waitFor({ timeout: 30_000 });
    expect(held).toHaveLength(1); // still unanswered: the page did not wait for it
    await page.close();
  });

  it('says an action left unanswered failed and may have been taken', async () => {
    const page = await pageWithShortDeadline();
    await page.goto(`${base}/ui#/jobs/${jid}`);
    await enterToken(page);
    postsToHold = 1;
    await page.getByRole('button', { name: 'Hold job' }).click();
    await page.locator('#notice-text', { hasText: 'no answer' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#notice-text').textContent()).toBe(
      'Hold job failed: no answer from the server within 2 s; it may have been taken: reload the page to see where things stand',
    );
    expect(postsToHold).toBe(0);
    await page.close();
  });

  it('says a bulk dry run left unanswered failed, without "may have been taken": it changes nothing', async () => {
    const page = await pageWithShortDeadline();
    await page.goto(`${base}/ui#/batches/${bid}`);
    await page.locator('#bulk-hold').waitFor({ timeout: 30_000 });
    await enterToken(page);
    postsToHold = 1;
    await page.locator('#bulk-hold').click();
    await page.locator('#notice-text', { hasText: 'no answer' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#notice-text').textContent()).toBe(
      'Hold all failed: no answer from the server within 2 s',
    );
    expect(postsToHold).toBe(0);
    await page.close();
  });
});
