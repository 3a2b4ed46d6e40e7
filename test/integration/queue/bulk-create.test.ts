import { beforeAll, describe, expect, it } from 'vitest';
import { acquireBatch } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createJobs, type JobSpec } from '../../../src/queue/jobs/create.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const COUNT = 10_000;

const spec = (position: number): JobSpec => ({
  position,
  configuration: {
    profile_name: 'merritt_demo_content',
    submitter: 'depositor',
    payload_url: `https://example.org/objects/${position}/manifest.checkm`,
    payload_type: 'object_manifest',
  },
  identifiers: { primary_id: '', local_id: [`local-${position}`] },
});

describe('a 10,000-job batch', () => {
  let ctx: QueueContext;
  let bid: string;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    bid = (
      await createBatch(ctx, {
        profile_name: 'p',
        submitter: 's',
        payload_url: 'u',
        type: 'batch-manifest',
      })
    ).bid;
    const acquired = (await acquireBatch(ctx, 'expand', { candidates: [bid] }))!;
    await commitBatchTransition(ctx, acquired, { type: 'batch.acquired' });
  });

  it('is created in chunked multis well under the request limit, and re-running its creation adds nothing', async () => {
    const specs = Array.from({ length: COUNT }, (_, i) => spec(i));
    // A first run that "crashed" after the first 4,000 objects.
    const first = await createJobs(ctx, bid, specs.slice(0, 4000));
    expect(first.created).toHaveLength(4000);
    expect(first.multis).toBeGreaterThan(1);

    const second = await createJobs(ctx, bid, specs);
    expect(second.skipped).toBe(4000);
    expect(second.created).toHaveLength(6000);

    const third = await createJobs(ctx, bid, specs);
    expect(third).toMatchObject({ created: [], skipped: COUNT, multis: 0 });

    const refs = await ctx.zk.getChildren(`/batches/${bid}/states/batch-processing`);
    expect(refs).toHaveLength(COUNT);
    const pending = await ctx.zk.getChildren('/jobs/states/pending');
    expect(new Set(pending.map((name) => name.slice(3)))).toEqual(new Set(refs));
    const jobs = (await ctx.zk.getChildren('/jobs')).filter((name) => name !== 'states');
    expect(jobs).toHaveLength(COUNT);

    // `mrtq doctor` (a real process) reads the whole tree and finds no violation.
    const run = await runCli(['doctor', '--json', '--zk', chroot.connectString()], {}, 120_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      problems: [],
      checked: { jobs: COUNT, batches: 1 },
    });
  }, 180_000);
});
