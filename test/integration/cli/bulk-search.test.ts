import { beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import type { BulkReport } from '../../../src/admin/bulk/outcome.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { createJobs } from '../../../src/queue/jobs/create.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

const TO_FAILED: JobEvent[] = [
  { type: 'job.acquired' },
  { type: 'estimate.done', spaceNeeded: 0 },
  { type: 'provision.done' },
  { type: 'download.failed', message: 'HTTP 404' },
];

describe('mrtq bulk and mrtq show by any key', () => {
  let ctx: QueueContext;
  const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });

  it('shows a dry run without --yes, then requeues with it; exit 1 while the lifecycle refuses some', async () => {
    const { bid, jids } = await expandedBatch(
      ctx,
      [0, 1, 2].map((i) => objectSpec(i)),
    );
    for (const jid of jids.slice(0, 2)) await driveJob(ctx, jid, TO_FAILED);

    const dry = await mrtq('bulk', 'requeue', '--batch', bid);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[0]).toMatch(/^JOB\s+BATCH\s+FROM\s+OUTCOME\s+TO \/ WHY$/);
    expect(dry.stdout).toMatch(new RegExp(`${jids[0]!}\\s+${bid}\\s+failed\\s+would\\s+downloading`));
    expect(dry.stderr).toContain('dry run: requeue of jobs in failed: 2 matched, 2 would change');
    expect((await loadJob(ctx, jids[0]!)).status).toBe('failed');

    const run = await mrtq('bulk', 'requeue', '--batch', bid, '--yes', '--json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as BulkReport;
    expect(report).toMatchObject({ dryRun: false, counts: { matched: 2, done: 2, refused: 0 } });
    for (const jid of jids.slice(0, 2)) expect((await loadJob(ctx, jid)).status).toBe('downloading');
    expect((await loadJob(ctx, jids[2]!)).status).toBe('pending');

    const refused = await mrtq('bulk', 'release', '--batch', bid, '--state', 'pending', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      new RegExp(`${jids[2]!}.*refused\\s+INVALID_TRANSITION: .*admin\\.release`),
    );
    expect(refused.stderr).toContain('1 refused (INVALID_TRANSITION: 1)');
    expect((await loadJob(ctx, jids[2]!)).status).toBe('pending');

    expect((await mrtq('bulk', 'requeue')).code).toBe(2); // no filter
    expect((await mrtq('bulk', 'explode', '--batch', bid)).code).toBe(2);
    expect((await mrtq('bulk', 'requeue', '--state', 'scanning')).code).toBe(2);
    expect((await mrtq('bulk', 'requeue', '--batch', 'bid9999999999')).code).toBe(7);
  });

  it('show takes an ARK, a local id or a title prefix, and lists the candidates when several match', async () => {
    const { bid } = await expandedBatch(ctx, [], { batchID: 'uuid-cli-show', erc_what: 'Show batch' });
    await createJobs(ctx, bid, [
      {
        ...objectSpec(0, { local_id: 'CLI-LOCAL-1' }),
        identifiers: { primary_id: 'ark:/13030/m5cli', local_id: [] },
        metadata: { erc_what: 'Unique title for the CLI' },
      },
      { ...objectSpec(1), metadata: { erc_what: 'Shared prefix one' } },
      { ...objectSpec(2), metadata: { erc_what: 'Shared prefix two' } },
    ]);
    const [jid] = (await ctx.zk.getChildren(`/batches/${bid}/states/batch-processing`)).sort();
    for (const key of ['ark:/13030/m5cli', 'CLI-LOCAL-1', 'unique title']) {
      const shown = await mrtq('show', key);
      expect(shown.code, `${key}: ${shown.stderr}`).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ kind: 'job', job: { jobId: jid } });
    }
    const byUuid = JSON.parse((await mrtq('show', 'uuid-cli-show')).stdout) as { batch: { batchId: string } };
    expect(byUuid.batch.batchId).toBe(bid);
    const several = await mrtq('show', 'Shared prefix');
    expect(several.code).toBe(1);
    expect(several.stderr).toContain('2 items match "Shared prefix"');
    const listed = JSON.parse(several.stdout) as { matches: { match: string }[]; total: number };
    expect(listed.total).toBe(2);
    expect(listed.matches.map((m) => m.match)).toEqual(['title', 'title']);
    expect((await mrtq('show', 'no such thing at all')).code).toBe(7);
  });
});
