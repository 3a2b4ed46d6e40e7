import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { startEngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe("the README's first run", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrtq-first-run-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('mrtq serve with the ingest steps stores a file submitted with mrtq submit, and writes the report to the outbox', async () => {
    // The service's disk limit (70 % full) is about the host's disk, not this test: allow 99 %.
    const env = { MRTQ_DATA_DIR: dataDir, MRTQ_MAX_USED_FRACTION: '0.99' };
    mkdirSync(join(dataDir, 'incoming'), { recursive: true });
    writeFileSync(join(dataDir, 'incoming', 'hello.txt'), 'hello merritt\n');
    const engine = await startEngineProcess(
      chroot.connectString(),
      ['--steps', 'ingest', '--sweep', '0'],
      env,
    );
    try {
      const url = `file://${join(dataDir, 'incoming', 'hello.txt')}`;
      const submitted = await runCli(
        ['submit', url, '--type', 'file', '--profile', 'demo', '--zk', chroot.connectString()],
        env,
      );
      expect(submitted.stderr).toBe('');
      const bid = submitted.stdout.trim();
      const ctx = queueContext(await chroot.connect());
      const batch = await eventually(
        () => loadBatch(ctx, bid),
        (b) => b.status === 'completed' || b.status === 'failed',
        30_000,
        100,
      );
      expect(batch.status).toBe('completed');
      expect(readdirSync(join(dataDir, 'store'))).toHaveLength(1);
      expect(readdirSync(join(dataDir, 'outbox')).some((f) => f.startsWith(bid))).toBe(true);

      // A local file given as a path is copied under the file roots and ingested from there.
      const local = join(dataDir, 'elsewhere.txt');
      writeFileSync(local, 'from a path\n');
      const byPath = await runCli(
        ['submit', local, '--type', 'file', '--profile', 'demo', '--zk', chroot.connectString()],
        env,
      );
      expect(byPath.code).toBe(0);
      const copied = await eventually(
        () => loadBatch(ctx, byPath.stdout.trim()),
        (b) => b.status === 'completed' || b.status === 'failed',
        30_000,
        100,
      );
      expect(copied.status).toBe('completed');
      expect(
        readdirSync(join(dataDir, 'incoming', 'uploads')).some((f) => f.endsWith('-elsewhere.txt')),
      ).toBe(true);

      const outside = await runCli(
        [
          'submit',
          'file:///etc/hostname',
          '--type',
          'file',
          '--profile',
          'demo',
          '--zk',
          chroot.connectString(),
        ],
        env,
      );
      const refused = await eventually(
        () => loadBatch(ctx, outside.stdout.trim()),
        (b) => b.status === 'completed' || b.status === 'failed',
        30_000,
        100,
      );
      // A file outside the roots fails its own job; the batch reports it as failed.
      expect(refused.status).toBe('failed');
    } finally {
      engine.signal('SIGTERM');
      expect(await engine.exited).toBe(0);
    }
  }, 60_000);
});
