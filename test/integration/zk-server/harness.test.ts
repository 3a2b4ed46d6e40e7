import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZooKeeperNotInstalledError, findDistribution } from '../../../src/zk-server/distribution.js';
import { isServing, serverMode } from '../../../src/zk-server/four-letter.js';
import { provideZooKeeper } from '../../../src/zk-server/provider.js';
import { isAlive } from '../../../src/zk-server/server-process.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-harness-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Processes whose command line names `dir`. */
function processesWith(dir: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return command.includes(dir) ? [`${pid} ${command.replace(/\0/g, ' ').slice(0, 120)}`] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

const noEnv = { zkConnect: undefined, zookeeperHome: undefined, javaHome: undefined } as const;

describe('where ZooKeeper comes from', () => {
  it('uses ZK_CONNECT as given and starts nothing', async () => {
    const provided = await provideZooKeeper({
      dir: tempDir(),
      config: { ...noEnv, zkConnect: '10.0.0.1:2181/merritt', containers: 'auto' },
    });
    expect(provided).toMatchObject({ source: 'ZK_CONNECT', connectString: '10.0.0.1:2181/merritt' });
    expect(provided.server).toBeUndefined();
  });

  it('falls back to a local server process on a free loopback port, stopped by its own pid', async () => {
    const dir = tempDir();
    const provided = await provideZooKeeper({ dir, config: { ...noEnv, containers: 'off' } });
    expect(provided.source).toBe('process');
    const server = provided.server!;
    expect(provided.connectString).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await serverMode(server.host, server.port)).toBe('standalone');
    const pid = server.pid!;
    await provided.stop();
    expect(isAlive(pid)).toBe(false);
    expect(await isServing(server.host, server.port)).toBe(false);
  });

  it('hands onStarting a stop that ends the JVM before it answers; the start then fails', async () => {
    const dir = tempDir();
    let stopping: Promise<void> | undefined;
    const started = provideZooKeeper({
      dir,
      config: { ...noEnv, containers: 'off' },
      onStarting: (stop) =>
        setImmediate(() => {
          stopping = stop();
        }),
    });
    await expect(started).rejects.toThrow(/did not start/);
    await stopping;
    expect(processesWith(dir)).toEqual([]);
  });

  it('names exactly what to install when no ZooKeeper distribution is found', () => {
    const emptyHome = tempDir();
    mkdirSync(join(emptyHome, 'lib'));
    let error: unknown;
    try {
      findDistribution({ zookeeperHome: emptyHome });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ZooKeeperNotInstalledError);
    expect((error as Error).message).toContain('apt-get install -y zookeeper');
    expect((error as Error).message).toContain(`ZOOKEEPER_HOME=${emptyHome} has no lib/zookeeper-*.jar`);
  });
});
