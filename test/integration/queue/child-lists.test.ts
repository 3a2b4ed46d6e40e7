import { describe, expect, it } from 'vitest';
import { startChildListWatch } from '../../../src/engine/child-list-watch.js';
import { childListSizes, type ChildListSize } from '../../../src/queue/tree/child-lists.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { jobStateFolder, refName } from '../../../src/queue/tree/paths.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { EngineMetrics } from '../../../src/telemetry/engine-metrics.js';
import { capturingLogger, type LogLine } from '../../support/merritt-service.js';
import { queueContext } from '../../support/queue-context.js';
import { childListReplyLength } from '../../support/zk-raw-reply.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const PENDING = jobStateFolder('pending');
const jid = (n: number): string => `jid${String(n).padStart(10, '0')}`;

function sizeAt(sizes: readonly ChildListSize[], path: string): ChildListSize {
  const size = sizes.find((s) => s.path === path);
  if (!size) throw new Error(`no size for ${path}: ${sizes.map((s) => s.path).join(', ')}`);
  return size;
}

describe('child lists Merritt’s Java readers take whole (issue 22; jute.maxbuffer)', () => {
  it('sizes a folder exactly as ZooKeeper’s reply is long, from its stat alone', async () => {
    const zk = await chroot.connect();
    const ctx = queueContext(zk);
    await ensureQueueTree(zk);
    for (let n = 1; n <= 60; n++) await zk.create(`${PENDING}/${refName(5, jid(n))}`);
    // Real sequential job ids under /jobs: the server names them.
    for (let n = 0; n < 7; n++) await zk.create('/jobs/jid', null, 'persistent_sequential');

    const sizes = await childListSizes(ctx);
    for (const path of [PENDING, '/jobs', '/batches', jobStateFolder('completed')])
      expect(sizeAt(sizes, path).bytes, path).toBe(await childListReplyLength(chroot.connectString(), path));
    expect(sizeAt(sizes, PENDING)).toMatchObject({ children: 60, level: 'ok' });
  });

  it('is over at exactly the reply length the Java client refuses (len >= jute.maxbuffer), near from 80 %', async () => {
    const zk = await chroot.connect();
    const ctx = queueContext(zk);
    const bytes = await childListReplyLength(chroot.connectString(), PENDING);
    expect(sizeAt(await childListSizes(ctx, bytes), PENDING).level).toBe('over');
    expect(sizeAt(await childListSizes(ctx, bytes + 1), PENDING).level).toBe('near');
    expect(sizeAt(await childListSizes(ctx, Math.floor(bytes / 0.8)), PENDING).level).toBe('near');
    expect(sizeAt(await childListSizes(ctx, Math.ceil(bytes / 0.79)), PENDING).level).toBe('ok');
  });

  it('doctor notes a folder near or over the limit, naming it and what to set (never a problem)', async () => {
    const zk = await chroot.connect();
    const ctx = queueContext(zk);
    const bytes = await childListReplyLength(chroot.connectString(), PENDING);
    const over = await doctor(ctx, { peerChildListBytes: bytes });
    const note = over.notes.find((n) => n.path === PENDING);
    expect(note?.code).toBe('CHILD_LIST_OVER_LIMIT');
    expect(note?.message).toMatch(/jute\.maxbuffer.*MRTQ_PEER_CHILD_LIST_BYTES/);
    expect(over.problems.filter((p) => p.path === PENDING)).toEqual([]);
    const near = await doctor(ctx, { peerChildListBytes: bytes + 100 });
    expect(near.notes).toContainEqual(
      expect.objectContaining({ code: 'CHILD_LIST_NEAR_LIMIT', path: PENDING }),
    );
    expect((await doctor(ctx)).notes.filter((n) => n.code.startsWith('CHILD_LIST'))).toEqual([]);
  });

  it('a serving process warns once when a folder nears the limit, errs when it passes it, and the metrics follow', async () => {
    const zk = await chroot.connect();
    const ctx = queueContext(zk);
    const lines: LogLine[] = [];
    const metrics = new EngineMetrics();
    const start = await childListReplyLength(chroot.connectString(), PENDING);
    // 60 refs of 20 bytes each: near at the start, over after 10 more refs.
    const limit = start + 150;
    const watch = startChildListWatch(
      { queue: ctx, metrics, log: capturingLogger(lines) },
      { limitBytes: limit, intervalMs: 0 },
    );
    try {
      await watch.checkNow();
      await watch.checkNow();
      const about = () => lines.filter((l) => l.folder === PENDING);
      expect(about().map((l) => l.level)).toEqual([40]);
      for (let n = 61; n <= 70; n++) await zk.create(`${PENDING}/${refName(5, jid(n))}`);
      await watch.checkNow();
      expect(about().map((l) => l.level)).toEqual([40, 50]);
      const gauge = (await metrics.families()).find((f) => f.name === 'mrtq_child_list_bytes');
      const pending = gauge?.samples.find((s) => s.labels?.folder === PENDING);
      expect(pending?.value).toBe(await childListReplyLength(chroot.connectString(), PENDING));
      const limitGauge = (await metrics.families()).find((f) => f.name === 'mrtq_child_list_limit_bytes');
      expect(limitGauge?.samples[0]?.value).toBe(limit);
      // Back below 80 %: one info line, and no more warnings.
      for (let n = 1; n <= 70; n++) await zk.delete(`${PENDING}/${refName(5, jid(n))}`);
      await watch.checkNow();
      expect(about().map((l) => l.level)).toEqual([40, 50, 30]);
    } finally {
      await watch.stop();
    }
  });
});
