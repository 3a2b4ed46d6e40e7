import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { QueueError } from '../../../src/queue/tree/errors.js';
import { acquireJob } from '../../../src/queue/jobs/acquire.js';
import { commitJobTransition } from '../../../src/queue/jobs/transition.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

/** Takes pending jobs one after another and moves each to estimating, until none is left. */
async function drain(ctx: QueueContext, taken: string[], invalid: string[]): Promise<void> {
  for (;;) {
    const acquired = await acquireJob(ctx, 'pending', { onInvalid: (jid) => invalid.push(jid) });
    if (!acquired) return;
    taken.push(acquired.job.jobId);
    await commitJobTransition(ctx, acquired, { type: 'job.acquired' });
  }
}

describe('acquiring work', () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('takes jobs in priority order: lower PP first, then jid', async () => {
    const { jids } = await expandedBatch(ctx, [
      objectSpec(0, {}, 7),
      objectSpec(1, {}, 3),
      objectSpec(2, {}, 5),
      objectSpec(3, {}, 3),
    ]);
    const order: string[] = [];
    await drain(ctx, order, []);
    expect(order).toEqual([jids[1], jids[3], jids[2], jids[0]]);
  });

  it('8 concurrent acquirers in separate sessions take each of 300 jobs exactly once', async () => {
    const { jids } = await expandedBatch(
      ctx,
      Array.from({ length: 300 }, (_, i) => objectSpec(i)),
    );
    const workers = await Promise.all(
      Array.from({ length: 8 }, async () => queueContext(await chroot.connect())),
    );
    const taken: string[][] = workers.map(() => []);
    await Promise.all(workers.map((w, i) => drain(w, taken[i]!, [])));
    const all = taken.flat();
    expect(all).toHaveLength(300);
    expect(new Set(all)).toEqual(new Set(jids));
    // Work was really shared out, not done by one session while the others found nothing.
    expect(taken.filter((t) => t.length > 0).length).toBeGreaterThan(1);
    expect(await ctx.zk.getChildren('/jobs/states/pending')).toEqual([]);
  });

  it('skips and reports jobs with malformed JSON, an unknown status or no status; every other job still runs', async () => {
    const { jids } = await expandedBatch(
      ctx,
      Array.from({ length: 6 }, (_, i) => objectSpec(i)),
    );
    const [malformed, unknown, missing] = jids as [string, string, string];
    await ctx.zk.setData(`/jobs/${malformed}/status`, '{"status": "Pending", ');
    await ctx.zk.setData(`/jobs/${unknown}/status`, '{"status":"Bogus","retry_count":0}');
    await ctx.zk.delete(`/jobs/${missing}/status`);
    const reported: { jid: string; error: QueueError }[] = [];
    const taken: string[] = [];
    for (;;) {
      const acquired = await acquireJob(ctx, 'pending', {
        onInvalid: (jid, error) => reported.push({ jid, error }),
      });
      if (!acquired) break;
      taken.push(acquired.job.jobId);
      await commitJobTransition(ctx, acquired, { type: 'job.acquired' });
      // Invalid items are skipped, not consumed: stop once every good job has been taken.
      if (taken.length === 3) break;
    }
    expect(taken.sort()).toEqual(jids.slice(3).sort());
    const byJob = new Map(reported.map((r) => [r.jid, r.error.message]));
    expect(byJob.get(malformed)).toMatch(/status is not valid JSON/);
    expect(byJob.get(unknown)).toMatch(/unknown job status "Bogus"/);
    expect(byJob.get(missing)).toMatch(/status is missing/);
    // Nothing was left locked by the skipped items.
    for (const jid of [malformed, unknown, missing])
      expect(await ctx.zk.exists(`/jobs/${jid}/lock`)).toBeUndefined();
  });
});
