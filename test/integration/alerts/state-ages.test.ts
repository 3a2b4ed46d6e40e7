import { beforeAll, describe, expect, it } from 'vitest';
import { StateAges } from '../../../src/alerts/state-ages.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { jobStateFolder, refName } from '../../../src/queue/tree/paths.js';
import type { ZkStat } from '../../../src/zk/index.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const BIG = 200;

describe('time in state read from the refs, sampled in a large folder (limits scaled down)', () => {
  let ctx: QueueContext;
  let initial: string;
  let failed: string;
  const reads = { listings: 0, nodes: 0 };

  const stats = async (): Promise<Map<string, ZkStat | undefined>> =>
    new Map(
      await Promise.all(
        ctx.lifecycle.states.map(
          async (state) =>
            [state, await ctx.zk.exists(jobStateFolder(ctx.lifecycle.folderOf(state)))] as const,
        ),
      ),
    );
  const measured = async (ages: StateAges) => {
    reads.listings = 0;
    reads.nodes = 0;
    const result = await ages.read(await stats(), Date.now());
    return { ...reads, byState: new Map(result.map((age) => [age.state, age])) };
  };

  beforeAll(async () => {
    const zk = await chroot.connect();
    ctx = queueContext(zk);
    initial = ctx.lifecycle.initial;
    failed = ctx.lifecycle.enteredBy('admin.fail')!;
    await ensureQueueTree(zk, ctx.lifecycle);
    // The first job waits longest; the others came a moment later, in job id order.
    const folder = jobStateFolder(ctx.lifecycle.folderOf(initial));
    await zk.create(`${folder}/${refName(5, 'jid0000000000')}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(
      Array.from({ length: BIG - 1 }, (_, i) =>
        zk.create(`${folder}/${refName(5, `jid${String(i + 1).padStart(10, '0')}`)}`),
      ),
    );
    for (const jid of ['jid0000001000', 'jid0000001001'])
      await zk.create(`${jobStateFolder(ctx.lifecycle.folderOf(failed))}/${refName(5, jid)}`);
    const getDataMany = zk.getDataMany.bind(zk);
    const getChildNames = zk.getChildNames.bind(zk);
    zk.getDataMany = (paths) => ((reads.nodes += paths.length), getDataMany(paths));
    zk.getChildNames = (path, watch) => ((reads.listings += 1), getChildNames(path, watch));
  });

  it('reads a sample and the lowest job ids of a folder above the limit, every ref of a small one, and nothing of an unchanged one', async () => {
    const ages = new StateAges(ctx, {
      exactLimit: 50,
      sampleSize: 20,
      oldestCandidates: 5,
      relistMs: 60_000,
    });
    const first = await measured(ages);
    const waiting = first.byState.get(initial)!;
    expect(waiting).toMatchObject({ jobs: BIG, exact: false });
    expect(waiting.read).toBeGreaterThanOrEqual(20);
    expect(waiting.read).toBeLessThanOrEqual(25);
    // The oldest is found though the sample is random: the lowest job id is always read.
    expect(waiting.quantiles['1']).toBeGreaterThanOrEqual(0.3);
    expect(waiting.quantiles['0.5']).toBeLessThan(waiting.quantiles['1']!);
    expect(first.byState.get(failed)).toMatchObject({ jobs: 2, read: 2, exact: true });
    expect(first.listings).toBe(2);
    expect(first.nodes).toBe(waiting.read + 2);

    const again = await measured(ages);
    expect([again.listings, again.nodes]).toEqual([0, 0]);
    expect(again.byState.get(initial)!.quantiles['1']).toBeGreaterThanOrEqual(waiting.quantiles['1']!);

    // A change within the relisting period: the sample is read again, the folder is not listed.
    await ctx.zk.create(`${jobStateFolder(ctx.lifecycle.folderOf(initial))}/${refName(5, 'jid0000009999')}`);
    const changed = await measured(ages);
    expect(changed.listings).toBe(0);
    expect(changed.nodes).toBe(waiting.read);
    expect(changed.byState.get(initial)).toMatchObject({ jobs: BIG + 1, exact: false });
  });
});
