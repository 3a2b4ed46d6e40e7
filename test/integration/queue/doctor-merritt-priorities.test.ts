import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { DoctorNote, DoctorProblem } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { writeForeignBatch } from '../../support/foreign-items.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot, type ZkChroot } from '../../support/zk-chroot.js';

// merritt-protocols.md §8: mrt-zk names a job's ref `String.format("%02d-%s", priority, id)` from
// its priority node as written, unclamped: a profile Priority of 100 or an estimate penalty gives
// `100-jid…`, a negative priority `-1-jid…`, each beside a priority node saying the same.
const merrittTree = useZkChroot();
const mismatched = useZkChroot();

interface DoctorJson {
  ok: boolean;
  problems: DoctorProblem[];
  notes: DoctorNote[];
}

const mrtq = (chroot: ZkChroot, ...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);

/** A job's priority node and its refs as they stand: data, and versions that any write moves on. */
async function snapshot(ctx: QueueContext, jids: readonly string[]): Promise<unknown> {
  const refs = (await ctx.zk.getChildren('/jobs/states/pending')).filter((name) =>
    jids.some((jid) => name.endsWith(jid)),
  );
  const priorities = await Promise.all(
    jids.map(async (jid) => {
      const { data, stat } = await ctx.zk.getData(`/jobs/${jid}/priority`);
      return { jid, priority: data?.toString(), version: stat.version, mzxid: stat.mzxid };
    }),
  );
  const refStats = await Promise.all(
    refs.map(async (name) => ({ name, czxid: (await ctx.zk.exists(`/jobs/states/pending/${name}`))?.czxid })),
  );
  return { refs: refs.sort(), priorities, refStats };
}

describe("doctor over refs Merritt's mrt-zk writes with a priority outside 00-99", () => {
  let ctx: QueueContext;
  let high: string;
  let negative: string;
  let before: unknown;

  beforeAll(async () => {
    ctx = queueContext(await merrittTree.connect());
    await ensureQueueTree(ctx.zk);
    const { jids } = await writeForeignBatch(ctx, [
      { prefix: '100', priority: '100' },
      { prefix: '-1', priority: '-1' },
    ]);
    [high, negative] = jids as [string, string];
    before = await snapshot(ctx, jids);
  });

  it('`mrtq doctor` exits 0, tells each job as a note naming it and its ref, and leaves node and ref as Merritt wrote them', async () => {
    const run = await mrtq(merrittTree, 'doctor');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`note JOB_STATE_REF_UNCLAMPED ${high}`);
    expect(run.stdout).toContain(`note JOB_STATE_REF_UNCLAMPED ${negative}`);
    expect(run.stdout).toContain(`/jobs/states/pending/100-${high}`);
    expect(run.stdout).not.toContain('JOB_STATE_REF_WRONG_PRIORITY');
    expect(run.stderr).toContain('no problems found');
    // Nothing that only reads clamps them: doctor, show, jobs, loading the job.
    await mrtq(merrittTree, 'show', high);
    await mrtq(merrittTree, 'jobs', '--state', 'pending');
    await loadJob(ctx, high);
    await loadJob(ctx, negative);
    expect(await snapshot(ctx, [high, negative])).toEqual(before);
    expect(before).toMatchObject({
      refs: [`-1-${negative}`, `100-${high}`].sort(),
      priorities: [
        { jid: high, priority: '100' },
        { jid: negative, priority: '-1' },
      ],
    });
  });

  it('`mrtq doctor --json` says ok, no problems, and a note per job with what the engine and Merritt do with it', async () => {
    const run = await mrtq(merrittTree, 'doctor', '--json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as DoctorJson;
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    // Still nothing written after a second run.
    expect(await snapshot(ctx, [high, negative])).toEqual(before);
    const notes = report.notes.filter((note) => note.code === 'JOB_STATE_REF_UNCLAMPED');
    expect(notes.map((note) => [note.item, note.path]).sort()).toEqual(
      [
        [high, `/jobs/states/pending/100-${high}`],
        [negative, `/jobs/states/pending/-1-${negative}`],
      ].sort(),
    );
    const about = (jid: string): string => notes.find((note) => note.item === jid)!.message;
    expect(about(high)).toContain(`/jobs/states/pending/99-${high}`);
    // Merritt's consumers drop 3 characters of a ref: `100-jid…` reads as `-jid…`, `-1-jid…` as the jid.
    expect(about(high)).toContain(`"-${high}"`);
    expect(about(negative)).toContain(`/jobs/states/pending/00-${negative}`);
    expect(about(negative)).not.toContain(`"-${negative}"`);
  });
});

describe('doctor over a ref whose prefix disagrees with the priority node in a way Merritt never writes', () => {
  it('still reports JOB_STATE_REF_WRONG_PRIORITY and exits 1', async () => {
    const ctx = queueContext(await mismatched.connect());
    await ensureQueueTree(ctx.zk);
    const { jids } = await writeForeignBatch(ctx, [
      { prefix: '05', priority: '7' },
      { prefix: '100', priority: '5' },
    ]);
    const run = await mrtq(mismatched, 'doctor', '--json');
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as DoctorJson;
    expect(report.problems.map((p) => `${p.code} ${p.item}`).sort()).toEqual(
      jids.map((jid) => `JOB_STATE_REF_WRONG_PRIORITY ${jid}`).sort(),
    );
    expect(report.notes.filter((note) => note.code === 'JOB_STATE_REF_UNCLAMPED')).toEqual([]);
  });
});
