import { beforeAll, describe, expect, it } from 'vitest';
import { batchWorkNow } from '../../../src/engine/batch-watch.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveBatch, driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe("the sweep's fresh read of batch work", () => {
  let ctx: QueueContext;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('finds every batch that needs expanding, reporting or an updated report, without watches', async () => {
    const submission = { profile_name: 'demo', submitter: 'd', payload_url: 'https://example.org/b.checkm' };
    const { bid: pending } = await createBatch(ctx, { ...submission, type: 'manifest' });
    const running = await expandedBatch(ctx, [objectSpec(0)]);
    const done = await expandedBatch(ctx, [objectSpec(0)]);
    // Its only job deleted: batch-processing is empty, so the batch is due for its report.
    await driveJob(ctx, done.jids[0]!, [{ type: 'admin.hold' }, { type: 'admin.delete' }]);
    const update = await expandedBatch(ctx, []);
    await driveBatch(ctx, update.bid, { type: 'batch.jobs-done' });
    await driveBatch(ctx, update.bid, { type: 'report.failed', message: 'mail' });
    await driveBatch(ctx, update.bid, { type: 'admin.update-report' });
    // A batch that another tool left without a status is not work (doctor reports it).
    await ctx.zk.create('/batches/bid9999999999');

    const work = await batchWorkNow(ctx.zk);
    expect(Object.fromEntries(work)).toEqual({
      expand: [pending],
      report: [done.bid],
      'update-report': [update.bid],
    });
    expect(work.get('report')).not.toContain(running.bid);
  });
});
