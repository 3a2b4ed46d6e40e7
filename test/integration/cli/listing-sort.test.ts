import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
type Page = { items: { jid: string; priority: number }[]; total: number; next?: string };

describe('`mrtq jobs --sort` (issue 21 item 3)', () => {
  let ctx: QueueContext;
  let jids: string[];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    ({ jids } = await expandedBatch(
      ctx,
      [9, 1, 5, 1, 3].map((priority, i) => objectSpec(i, {}, priority)),
    ));
  });

  const cli = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

  it('pages jobs by priority, highest first (lowest number), the cursor carrying the sort', async () => {
    const first = await cli('jobs', '--sort', 'priority', '--json', '--limit', '3');
    expect(first.code, first.stderr).toBe(0);
    const one = JSON.parse(first.stdout) as Page;
    expect(one.items.map((j) => j.jid)).toEqual([jids[1], jids[3], jids[4]]);
    const second = await cli('jobs', '--sort', 'priority', '--json', '--limit', '3', '--after', one.next!);
    expect(second.code, second.stderr).toBe(0);
    const two = JSON.parse(second.stdout) as Page;
    expect(two.items.map((j) => j.jid)).toEqual([jids[2], jids[0]]);
    expect(two.next).toBeUndefined();
  });

  it('refuses an unknown sort as a usage error', async () => {
    const run = await cli('jobs', '--sort', 'size');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown sort "size"');
  });
});
