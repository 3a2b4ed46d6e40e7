import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('mrtq batches, jobs and show', () => {
  let ctx: QueueContext;
  const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('lists batches and jobs as tables or JSON, and shows one item by id or uuid', async () => {
    const { bid, jids } = await expandedBatch(
      ctx,
      [objectSpec(0, {}, 7), objectSpec(1, {}, 3), objectSpec(2, {}, 5)],
      {
        batchID: 'u-listing',
      },
    );
    const batches = JSON.parse((await mrtq('batches', '--json')).stdout) as {
      items: { bid: string; status: string }[];
      total: number;
    };
    expect(batches.items).toContainEqual(expect.objectContaining({ bid, status: 'processing' }));

    const jobs = JSON.parse((await mrtq('jobs', '--state', 'pending', '--json')).stdout) as {
      items: { jid: string }[];
    };
    expect(jobs.items.map((j) => j.jid)).toEqual([jids[1], jids[2], jids[0]]);

    const human = await mrtq('jobs', '--batch', bid);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n')[0]).toMatch(/^JOB\s+BATCH\s+STATE\s+PRIO/);
    expect(human.stdout).toContain(jids[0]!);

    const shownJob = JSON.parse((await mrtq('show', jids[0]!)).stdout) as {
      kind: string;
      job: { jobId: string };
    };
    expect(shownJob).toMatchObject({ kind: 'job', job: { jobId: jids[0] } });
    const shownBatch = JSON.parse((await mrtq('show', 'u-listing')).stdout) as {
      kind: string;
      batch: { batchId: string };
    };
    expect(shownBatch).toMatchObject({ kind: 'batch', batch: { batchId: bid } });
    expect((await mrtq('show', 'jid9999999999')).code).toBe(7);
    expect((await mrtq('jobs', '--state', 'bogus')).code).toBe(2);
  });
});
