import { describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { startEngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('mrtq submit', () => {
  it('queues a batch once per uuid, and a running mrtq serve completes it', async () => {
    const zk = ['--zk', chroot.connectString()];
    const first = await runCli(['submit', 'sim:3', '--profile', 'demo', '--uuid', 'u-1', '--json', ...zk]);
    expect(first.code).toBe(0);
    const { bid, created } = JSON.parse(first.stdout) as { bid: string; created: boolean };
    expect(created).toBe(true);
    const again = await runCli(['submit', 'sim:3', '--profile', 'demo', '--uuid', 'u-1', ...zk]);
    expect(again.stdout.trim()).toBe(bid);
    expect(again.stderr).toContain('nothing new was queued');

    const unknown = await runCli(['submit', 'sim:1', '--profile', 'nope', ...zk]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown profile "nope"');
    expect(unknown.stderr).toContain('demo');

    const missing = await runCli(['submit', 'sim:1', ...zk]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--profile <name>'");

    const engine = await startEngineProcess(chroot.connectString(), ['--sweep', '0']);
    try {
      const ctx = queueContext(await chroot.connect());
      const batch = await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed',
        30_000,
        100,
      );
      expect(batch.jobCount).toBe(3);
    } finally {
      engine.signal('SIGTERM');
      expect(await engine.exited).toBe(0);
    }
  }, 60_000);
});
