import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { JAVA_TIME, writeForeignBatch } from '../../support/foreign-items.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

type Counts = { processing: number; completed: number; failed: number; deleted: number };

/**
 * Merritt's consumer finishing a job as mrt-zk's `Job.setStatus` does: the status, then the
 * state ref, then the batch ref moved into `batch-completed` (created when it is not there yet).
 */
async function completeAsMerritt(ctx: QueueContext, bid: string, jid: string): Promise<void> {
  const { zk } = ctx;
  await zk.setData(
    `/jobs/${jid}/status`,
    JSON.stringify({
      status: 'Completed',
      last_successful_status: 'Notify',
      last_modified: JAVA_TIME,
      retry_count: 0,
    }),
  );
  await zk.delete(`/jobs/states/pending/05-${jid}`);
  await zk.mkdirp('/jobs/states/completed');
  await zk.create(`/jobs/states/completed/05-${jid}`);
  await zk.delete(`/batches/${bid}/states/batch-processing/${jid}`);
  await zk.mkdirp(`/batches/${bid}/states/batch-completed`);
  await zk.create(`/batches/${bid}/states/batch-completed/${jid}`);
}

describe("mrtq show of a batch Merritt's mrt-zk expanded", () => {
  let bid: string;
  let jids: string[];

  beforeAll(async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // Expanded as mrt-zk does: refs under states/, no job count anywhere in the batch's nodes.
    ({ bid, jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '5' },
      { prefix: '05', priority: '5' },
      { prefix: '05', priority: '5' },
    ]));
    await completeAsMerritt(ctx, bid, jids[0]!);
  });

  it('says the same job count, and the same counts per folder, as `mrtq batches`', async () => {
    const table = await mrtq('batches');
    expect(table.code, table.stderr).toBe(0);
    // DONE/FAILED/RUNNING/DELETED
    expect(table.stdout.split('\n').find((line) => line.startsWith(bid))).toMatch(/\s1\/0\/2\/0\s/);

    const shown = await mrtq('show', bid);
    expect(shown.code, shown.stderr).toBe(0);
    const item = JSON.parse(shown.stdout) as {
      kind: string;
      batch: { batchId: string; jobCount: number };
      counts: Counts;
      jobs: { jid: string }[];
    };
    expect(item).toMatchObject({ kind: 'batch', batch: { batchId: bid } });
    expect(item.batch.jobCount).toBe(3);
    expect(item.jobs.map((job) => job.jid).sort()).toEqual([...jids].sort());

    const listed = await mrtq('batches', '--json');
    const summary = (
      JSON.parse(listed.stdout) as { items: { bid: string; jobCount?: number; counts: Counts }[] }
    ).items.find((entry) => entry.bid === bid)!;
    expect(summary.counts).toEqual({ processing: 2, completed: 1, failed: 0, deleted: 0 });
    expect(summary.jobCount).toBe(3);
    expect(item.counts).toEqual(summary.counts);
  });
});
