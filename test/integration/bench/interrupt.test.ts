import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../../src/package-root.js';

/** Processes whose command line or working directory is under `dir` (those a run started there). */
function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (command.includes(dir) || readlinkSync(`/proc/${pid}/cwd`).startsWith(dir))
        found.push(`${pid} ${command.slice(0, 120)}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** `mrtq bench --payload --quick` of one-file objects, on its own ZooKeeper, its folders under `tmp`. */
function startBench(tmp: string) {
  const bench = spawn(
    process.execPath,
    [
      packagePath('bin', 'mrtq.js'),
      'bench',
      '--payload',
      '--quick',
      '--payloads',
      'one-file-objects',
      '--results',
      '',
    ],
    {
      env: { ...process.env, TMPDIR: tmp, ZK_CONNECT: '', MRTQ_CONFIG: '', MRTQ_HOME: tmp },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<number | string | null>((resolve) =>
    bench.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const output = { progress: '' };
  bench.stderr.on('data', (chunk: Buffer) => (output.progress += chunk.toString()));
  return { bench, exited, output };
}

describe('an interrupted benchmark', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'mrtq-interrupt-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('interrupted while its ZooKeeper starts, leaves no process or payload folder and exits 143', async () => {
    const dir = mkdtempSync(join(tmp, 'starting-'));
    const { bench, exited } = startBench(dir);
    // Its JVM spawned, polled every 20 ms: a JVM here takes about a second to answer. (This also
    // passes without provideZooKeeper's onStarting: a JVM this early dies when the bench removes
    // its folder; harness.test.ts pins onStarting itself.)
    await expect
      .poll(() => processesUnder(dir).some((p) => /\bjava /.test(p)), {
        timeout: 120_000,
        interval: 20,
      })
      .toBe(true);
    bench.kill('SIGTERM');
    expect(await exited).toBe(143);
    await expect.poll(() => processesUnder(dir), { timeout: 60_000, interval: 200 }).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.startsWith('mrtq-payload-'))).toEqual([]);
  }, 300_000);

  it('stops its ZooKeeper, file servers and mrtq serve, removes its payloads, and exits 143 on SIGTERM (sent twice)', async () => {
    // Its own ZooKeeper (no ZK_CONNECT, no config file), and every temporary folder under `tmp`.
    const { bench, exited, output } = startBench(tmp);
    // The row's service is running once its limit is measured; the ingest starts next.
    await expect
      .poll(() => output.progress, { timeout: 180_000, interval: 200 })
      .toMatch(/keep-alive: limit/);
    const started = processesUnder(tmp);
    expect(started.length, started.join('\n')).toBeGreaterThanOrEqual(3); // ZooKeeper, file servers, serve

    // Twice, as `npm run bench` under `timeout` gets it: the same interrupt, not a forced end (the
    // second a moment later, or the kernel merges it with the first while that one is pending).
    bench.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    bench.kill('SIGTERM');
    expect(await exited).toBe(143);
    await expect.poll(() => processesUnder(tmp), { timeout: 60_000, interval: 200 }).toEqual([]);
    expect(readdirSync(tmp).filter((name) => name.startsWith('mrtq-payload-'))).toEqual([]);
  }, 300_000);
});
