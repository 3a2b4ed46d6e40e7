import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'mrtq.js');

describe('mrtq watch', () => {
  it('prints the transitions of a job as another session makes them', async () => {
    const ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const { jids } = await expandedBatch(ctx, [objectSpec(0)]);
    const jid = jids[0]!;
    const watch = spawn(
      process.execPath,
      [BIN, 'watch', '--json', '--exit-after', '3', '--zk', chroot.connectString()],
      {
        env: { ...process.env, ZK_CONNECT: '' },
      },
    );
    // A test that fails part way must not leave it running (a no-op once it has exited).
    onTestFinished(() => {
      watch.kill();
    });
    let out = '';
    let err = '';
    watch.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      watch.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        if (err.includes('watching')) resolve();
      });
      watch.once('exit', () => reject(new Error(`watch exited early: ${err}`)));
    });
    await ready;
    const exited = new Promise<number | null>((resolve) => watch.once('exit', resolve));
    const events = [
      { type: 'job.acquired' },
      { type: 'estimate.done', spaceNeeded: 1 },
      { type: 'provision.done' },
    ] as const;
    for (const [i, event] of events.entries()) {
      await driveJob(ctx, jid, [event]);
      // One at a time: watches coalesce, so transitions made faster than they are read may merge.
      await eventually(
        () => out.trim().split('\n').filter(Boolean).length,
        (n) => n > i,
        10_000,
        20,
      );
    }
    expect(await exited).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; id: string; from: string; to: string });
    expect(lines.map((l) => [l.kind, l.id, l.from, l.to])).toEqual([
      ['job', jid, 'pending', 'estimating'],
      ['job', jid, 'estimating', 'provisioning'],
      ['job', jid, 'provisioning', 'downloading'],
    ]);
  }, 30_000);
});
