import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EndpointRecord } from '../../../src/endpoint-file.js';
import { runCliIn, startServeIn } from '../../support/cli-process.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

describe('mrtq run from any directory finds the running service (README, "Where ZooKeeper comes from")', () => {
  const root = mkdtempSync(join(tmpdir(), 'mrtq-discovery-'));
  const home = join(root, 'ingest-home');
  const elsewhere = join(root, 'elsewhere');
  const nested = join(home, 'batches', 'today');
  mkdirSync(nested, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  const user = join(root, 'user'); // HOME of every process: no real ~/.config/mrtq is read
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serve writes an endpoint file and its dashboard URL; the CLI finds its ZooKeeper through MRTQ_HOME or an mrtq.yaml above it, and zk up starts no second one', async () => {
    writeFileSync(join(home, 'mrtq.yaml'), 'MRTQ_HTTP_PORT: 0\nMRTQ_CLEANUP_INTERVAL_MS: off\n');
    const serve = await startServeIn(
      elsewhere,
      ['--zk', chroot.connectString(), '--steps', 'simulated', '--sweep', '0'],
      { MRTQ_HOME: home, HOME: user },
    );
    const endpointFile = join(home, '.data', 'endpoint.json');
    try {
      // The data directory is MRTQ_HOME's, not the directory serve was started in.
      expect(existsSync(join(elsewhere, '.data'))).toBe(false);
      const record = JSON.parse(readFileSync(endpointFile, 'utf8')) as EndpointRecord;
      expect(record).toMatchObject({
        pid: serve.proc.pid,
        host: hostname(),
        connectString: chroot.connectString(),
      });
      // JSON logs (not a terminal) carry the dashboard's URL in the "service running" line.
      const running = serve
        .output()
        .split('\n')
        .find((line) => line.includes('"msg":"service running'));
      const dashboard = (JSON.parse(running!) as { dashboard?: string }).dashboard;
      expect(dashboard).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/$/);
      expect(dashboard).toBe(record.dashboardUrl);
      const page = await fetch(dashboard!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');

      // From another directory with MRTQ_HOME, and from a directory under the home without it.
      for (const [cwd, env] of [
        [elsewhere, { MRTQ_HOME: home, HOME: user }],
        [nested, { HOME: user }],
      ] as const) {
        const submitted = await runCliIn(cwd, ['submit', 'sim:2', '--profile', 'demo'], env);
        expect(submitted).toMatchObject({ code: 0, stderr: '' });
        const listed = await runCliIn(cwd, ['batches', '--json'], env);
        expect(listed.code).toBe(0);
        expect(listed.stdout).toContain(submitted.stdout.trim());
      }

      const up = await runCliIn(elsewhere, ['zk', 'up'], { MRTQ_HOME: home, HOME: user });
      expect(up.code).toBe(0);
      expect(up.stdout.trim()).toBe(chroot.connectString());
      expect(up.stderr).toContain(`(pid ${serve.proc.pid}) uses it; not starting another`);
      expect(existsSync(join(home, '.data', 'zookeeper'))).toBe(false);
      const status = await runCliIn(nested, ['zk', 'status'], { HOME: user });
      expect(status.stdout.trim()).toBe(chroot.connectString());
      expect(status.stderr).toContain(record.dashboardUrl);
    } finally {
      serve.proc.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
    // A clean stop removes the file.
    expect(existsSync(endpointFile)).toBe(false);
  }, 120_000);

  it('ignores a stale endpoint file (its service is gone) with a note, and says where it looked and how to point at ZooKeeper', async () => {
    const stale = join(root, 'stale-home');
    mkdirSync(join(stale, '.data'), { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    const record: EndpointRecord = {
      pid: dead,
      host: hostname(),
      connectString: chroot.connectString(),
      startedAt: new Date().toISOString(),
    };
    writeFileSync(join(stale, '.data', 'endpoint.json'), JSON.stringify(record));
    const result = await runCliIn(elsewhere, ['jobs'], { MRTQ_HOME: stale, HOME: user });
    expect(result.code).toBe(3);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`^mrtq: note: ignoring .*endpoint\\.json: the service that wrote it \\(pid ${dead}`),
    );
    expect(lines[1]).toContain(
      `in ${join(stale, '.data')} (data dir: under MRTQ_HOME; no config file (looked in ${stale}))`,
    );
    for (const hint of ['--zk', 'set ZK_CONNECT', 'set MRTQ_HOME', 'mrtq zk up'])
      expect(lines[1]).toContain(hint);
  });

  it('with no MRTQ_HOME and no mrtq.yaml, names the directories it searched', async () => {
    // An empty data directory of its own: the package's `.data` may hold a developer's service.
    const empty = join(root, 'empty-data');
    const result = await runCliIn(elsewhere, ['tree'], { HOME: user, MRTQ_DATA_DIR: empty });
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      `looked in ${elsewhere} and its parents, ${join(user, '.config', 'mrtq')}`,
    );
  });
});
