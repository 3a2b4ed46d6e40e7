import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { formatTimestamp } from '../../../src/queue/tree/timestamps.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const LONG_AGO = '2020-01-02 03:04:05 +0000';

/**
 * Writes an access request as mrt-zk's Java `Access.createAssembly` does (merritt-protocols.md
 * §7): the sequential id node, then `token`, then `status`, three calls; the status as given.
 */
async function merrittWrites(
  ctx: QueueContext,
  queue: 'small' | 'large',
  token: string,
  status: { status: string; last_modified: string; message?: string },
): Promise<string> {
  const created = await ctx.zk.create(`/access/${queue}/qid`, null, 'persistent_sequential');
  await ctx.zk.create(
    `${created}/token`,
    JSON.stringify({ status: 201, token, 'cloud-content-byte': 1234, 'delivery-node': 7777 }),
  );
  await ctx.zk.create(`${created}/status`, JSON.stringify({ message: '', ...status }));
  return created.slice(created.lastIndexOf('/') + 1);
}

const wireStatus = async (ctx: QueueContext, path: string): Promise<unknown> =>
  (JSON.parse((await ctx.zk.getData(`${path}/status`)).data!.toString('utf8')) as { status: unknown }).status;

describe('mrtq access on requests Merritt wrote (merritt-protocols.md §7; mrt-admin’s actions, §6) and mrtq fail', () => {
  let ctx: QueueContext;
  const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('list, show, requeue, delete and clean --dry-run, with exit codes that say what went wrong', async () => {
    const failed = await merrittWrites(ctx, 'large', 'tok-failed', {
      status: 'Failed',
      last_modified: LONG_AGO,
      message: 'token not found on node 7777',
    });
    const oldDone = await merrittWrites(ctx, 'small', 'tok-old', {
      status: 'Completed',
      last_modified: LONG_AGO,
    });
    const newDone = await merrittWrites(ctx, 'small', 'tok-new', {
      status: 'Completed',
      last_modified: formatTimestamp(new Date()),
    });
    const pending = await merrittWrites(ctx, 'small', 'tok-pending', {
      status: 'Pending',
      last_modified: LONG_AGO,
    });

    const all = await mrtq('access', 'list', '--json');
    expect(all.code).toBe(0);
    const page = JSON.parse(all.stdout) as {
      items: { queue: string; qid: string; status: string }[];
      total: number;
    };
    expect(page.total).toBe(4);
    expect(page.items.map((r) => `${r.queue}/${r.qid} ${r.status}`).sort()).toEqual(
      [
        `large/${failed} failed`,
        `small/${oldDone} completed`,
        `small/${newDone} completed`,
        `small/${pending} pending`,
      ].sort(),
    );
    const onlyFailed = await mrtq('access', 'list', '--status', 'failed');
    expect(onlyFailed.code).toBe(0);
    expect(onlyFailed.stdout).toContain(`large/${failed}`);
    expect(onlyFailed.stdout).toContain('tok-failed');
    expect(onlyFailed.stdout).toContain('token not found on node 7777');
    expect(onlyFailed.stdout).not.toContain('tok-old');
    expect((await mrtq('access', 'list', '--status', 'nonsense')).code).toBe(2);

    const shown = await mrtq('access', 'show', `large/${failed}`);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      queue: 'large',
      qid: failed,
      status: 'failed',
      token: { token: 'tok-failed', 'delivery-node': 7777 },
    });
    // Each queue numbers its own requests: qid0000000000 is in both, so a bare id is refused.
    const ambiguous = await mrtq('access', 'show', failed);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`small/${failed}, large/${failed}`);
    expect((await mrtq('access', 'show', 'large/qid9999999999')).code).toBe(7);

    expect(await mrtq('access', 'requeue', `large/${failed}`)).toMatchObject({
      code: 0,
      stdout: `large/${failed} pending\n`,
    });
    // Written as Merritt's Java reader expects it.
    expect(await wireStatus(ctx, `/access/large/${failed}`)).toBe('Pending');
    const twice = await mrtq('access', 'requeue', `large/${failed}`);
    expect(twice.code).toBe(5);
    expect(twice.stderr).toContain('admin.requeue');
    expect((await mrtq('access', 'requeue', 'large/qid9999999999')).code).toBe(7);

    expect((await mrtq('access', 'delete', `small/${pending}`)).code).toBe(5);
    expect((await mrtq('access', 'delete', `small/${oldDone}`, '--json')).stdout).toBe(
      `${JSON.stringify({ id: `small/${oldDone}`, status: 'deleted' })}\n`,
    );
    expect(await wireStatus(ctx, `/access/small/${oldDone}`)).toBe('Deleted');

    // The deletion wrote a fresh last_modified: with a retention of a day only nothing old is left…
    const keptAll = await mrtq('access', 'clean', '--dry-run', '--retention', '1d');
    expect(keptAll).toMatchObject({ code: 0, stdout: 'would remove 0 access requests\n' });
    // …and with none, the deleted and both completed requests would go; nothing is removed.
    const dry = await mrtq('access', 'clean', '--dry-run', '--retention', '0ms', '--json');
    expect(dry.code).toBe(0);
    const report = JSON.parse(dry.stdout) as { dryRun: boolean; removed: { queue: string; qid: string }[] };
    expect(report.dryRun).toBe(true);
    expect(report.removed.map((r) => `${r.queue}/${r.qid}`).sort()).toEqual(
      [`small/${oldDone}`, `small/${newDone}`].sort(),
    );
    for (const qid of [oldDone, newDone]) expect(await ctx.zk.exists(`/access/small/${qid}`)).toBeDefined();
  });

  it('fail <jid> --reason fails a waiting job with the reason; 5 when the lifecycle refuses, 7 when there is no such job', async () => {
    const { jids } = await expandedBatch(ctx, [objectSpec(0)]);
    const jid = jids[0]!;
    expect(await mrtq('fail', jid, '--reason', 'payload withdrawn by the depositor')).toMatchObject({
      code: 0,
      stdout: `${jid} failed\n`,
    });
    const job = await loadJob(ctx, jid);
    expect(job.status).toBe('failed');
    expect(job.message).toContain('payload withdrawn by the depositor');

    const again = await mrtq('fail', jid, '--reason', 'twice');
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('admin.fail');
    expect((await loadJob(ctx, jid)).message).toContain('payload withdrawn by the depositor');

    expect((await mrtq('fail', 'jid9999999999', '--reason', 'none')).code).toBe(7);
    expect((await mrtq('fail', 'bid0000000000', '--reason', 'a batch')).code).toBe(2);
  });
});
