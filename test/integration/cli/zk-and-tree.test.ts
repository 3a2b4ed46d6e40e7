import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectZk } from '../../../src/zk/index.js';
import { isServing } from '../../../src/zk-server/four-letter.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('mrtq tree', () => {
  it('prints every node under a path as sorted JSON lines, ephemerals marked', async () => {
    const zk = await chroot.connect();
    await zk.mkdirp('/b/deep/er');
    await zk.create('/a', 'alpha');
    await zk.create('/b/deep/er/leaf', '{"status":"Pending"}');
    await zk.create('/b/lock', null, 'ephemeral');
    await zk.create('/c', Buffer.from([0xff, 0xfe, 0x00]));

    const all = await runCli(['tree', '--json', '--zk', chroot.connectString()]);
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { path: '/a', data: 'alpha', ephemeral: false },
      { path: '/b', data: '', ephemeral: false },
      { path: '/b/deep', data: '', ephemeral: false },
      { path: '/b/deep/er', data: '', ephemeral: false },
      { path: '/b/deep/er/leaf', data: '{"status":"Pending"}', ephemeral: false },
      { path: '/b/lock', data: '', ephemeral: true },
      { path: '/c', data: '//4A', ephemeral: false, encoding: 'base64' },
    ]);

    const sub = await runCli(['tree', '/b/deep', '--json'], { ZK_CONNECT: chroot.connectString() });
    expect(
      sub.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { path: string }).path),
    ).toEqual(['/b/deep', '/b/deep/er', '/b/deep/er/leaf']);
  });

  it('says how to point it at ZooKeeper when there is none, with exit code 3', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mrtq-nozk-'));
    try {
      const result = await runCli(['tree', '--json'], { MRTQ_DATA_DIR: dataDir });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('set ZK_CONNECT');
      expect(result.stderr).toContain('mrtq zk up');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('mrtq zk up / down', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mrtq-zkup-'));
  const env = { MRTQ_DATA_DIR: dataDir, MRTQ_CONTAINERS: 'off' };
  afterAll(async () => {
    await runCli(['zk', 'down'], env);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a server that outlives the command, keeps its data across down/up, and stops it', async () => {
    const up = await runCli(['zk', 'up'], env);
    expect(up.code).toBe(0);
    const connect = up.stdout.trim();
    expect(connect).toMatch(/^127\.0\.0\.1:\d+$/);
    const [host, port] = connect.split(':') as [string, string];
    expect(await isServing(host, Number(port))).toBe(true);

    expect((await runCli(['zk', 'up'], env)).stdout.trim()).toBe(connect);
    expect((await runCli(['zk', 'status'], env)).stdout.trim()).toBe(connect);

    const zk = await connectZk({ connectString: connect });
    await zk.create('/survives', 'yes');
    await zk.close();
    // With no --zk and no ZK_CONNECT, commands use the embedded server.
    const tree = await runCli(['tree', '/survives', '--json'], env);
    expect(JSON.parse(tree.stdout)).toEqual({ path: '/survives', data: 'yes', ephemeral: false });

    expect((await runCli(['zk', 'down'], env)).code).toBe(0);
    expect(await isServing(host, Number(port))).toBe(false);
    expect((await runCli(['zk', 'status'], env)).code).toBe(1);

    const again = await runCli(['zk', 'up'], env);
    expect(again.stdout.trim()).toBe(connect);
    const after = await runCli(['tree', '/survives', '--json'], env);
    expect(JSON.parse(after.stdout)).toMatchObject({ path: '/survives', data: 'yes' });
  });
});
