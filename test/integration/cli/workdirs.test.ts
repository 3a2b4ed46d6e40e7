import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { findLeftoverWorkDirs } from '../../../src/steps/workdir/sweep.js';
import { startEngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const DAY_AGO = new Date(Date.now() - 86_400_000);

/** A job's working directory with a payload inside, last modified a day ago. */
async function workDir(root: string, bid: string, jid: string): Promise<string> {
  const dir = join(root, bid, jid);
  await mkdir(join(dir, 'producer'), { recursive: true });
  await writeFile(join(dir, 'producer', 'payload.bin'), 'the object');
  await utimes(dir, DAY_AGO, DAY_AGO);
  return dir;
}

describe('working directories of jobs that are done or gone', () => {
  let ctx: QueueContext;
  let root: string;
  const mrtq = (...args: string[]) =>
    runCli([...args, '--zk', chroot.connectString()], { MRTQ_WORK_ROOT: root });

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    root = await mkdtemp(join(tmpdir(), 'mrtq-workdirs-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('doctor reports them, cleanup removes them; failed, running and young ones stay', async () => {
    const { bid, jids } = await expandedBatch(ctx, [
      objectSpec(0),
      objectSpec(1),
      objectSpec(2),
      objectSpec(3),
    ]);
    const [done, failed, dropped, running] = jids as [string, string, string, string];
    const toDownloading = [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 1 },
      { type: 'provision.done' },
    ] as const;
    await driveJob(ctx, done, [
      ...toDownloading,
      { type: 'download.done', spaceNeeded: 1 },
      { type: 'process.done' },
      { type: 'store.done' },
      { type: 'record.done' },
      { type: 'notify.done' },
    ]);
    await driveJob(ctx, failed, [...toDownloading, { type: 'download.failed', message: '404' }]);
    await driveJob(ctx, dropped, [
      ...toDownloading,
      { type: 'download.failed', message: '404' },
      { type: 'admin.delete' },
    ]);
    await driveJob(ctx, running, [...toDownloading]);
    for (const jid of jids) await workDir(root, bid, jid);
    const gone = await workDir(root, 'bid0000009999', 'jid0000009999');
    const young = join(root, 'bid0000009998', 'jid0000009998');
    await mkdir(young, { recursive: true });

    const found = await findLeftoverWorkDirs(ctx, { workRoot: root });
    expect(found.map((f) => [f.jid, f.reason])).toEqual([
      [done, 'completed'],
      [dropped, 'deleted'],
      ['jid0000009999', 'job unknown to ZooKeeper'],
    ]);

    const doctor = await mrtq('doctor', '--json');
    expect(doctor.code).toBe(1);
    const problems = (JSON.parse(doctor.stdout) as { problems: { code: string; path: string }[] }).problems;
    expect(problems.filter((p) => p.code === 'WORKDIR_LEFTOVER').map((p) => p.path)).toEqual(
      found.map((f) => f.dir),
    );

    const dry = await mrtq('cleanup', '--dry-run');
    expect(dry.stdout).toContain(`would remove working directory ${gone} (job unknown to ZooKeeper)`);
    expect(await readdir(join(root, 'bid0000009999'))).toEqual(['jid0000009999']);

    const cleanup = await mrtq('cleanup');
    expect(cleanup.code).toBe(0);
    expect(cleanup.stdout).toContain(`removed working directory ${join(root, bid, done)} (completed)`);
    expect((await readdir(join(root, bid))).sort()).toEqual([failed, running].sort());
    expect(await readdir(root)).not.toContain('bid0000009999');
    expect(await readdir(join(root, 'bid0000009998'))).toEqual(['jid0000009998']);
  });

  it('mrtq serve removes them when it starts (a restart after a kill), without waiting for cleanup', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mrtq-workdirs-serve-'));
    const workRoot = join(dataDir, 'work');
    const gone = await workDir(workRoot, 'bid0000008888', 'jid0000008888');
    const engine = await startEngineProcess(chroot.connectString(), ['--steps', 'ingest', '--sweep', '0'], {
      MRTQ_DATA_DIR: dataDir,
      MRTQ_MAX_USED_FRACTION: '0.99',
    });
    try {
      await eventually(
        () => readdir(workRoot),
        (names) => !names.includes('bid0000008888'),
        30_000,
      );
      expect(engine.output()).toContain(gone);
    } finally {
      engine.signal('SIGTERM');
      await engine.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
