import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/zk-server/free-port.js';
import { logLines } from '../../support/chaos/zk-ensemble.js';
import { spawnEngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { startPrivateServer } from '../../support/private-server.js';
import { runCli, type CliResult } from '../../support/run-cli.js';

/** A refusal a script can act on: the exit code, and one line on stderr (no stack trace). */
function expectOneLine(result: CliResult, code: number, says: RegExp): void {
  // Both in one assertion: a failure shows the code and what was said.
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code, stderr: result.stderr });
  expect(result.stderr).toMatch(says);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe('mrtq when ZooKeeper does not answer', () => {
  let nobody: string;
  let frozen: Awaited<ReturnType<typeof startPrivateServer>>;

  beforeAll(async () => {
    // A port nothing listens on, and a server that accepts connections but never answers.
    nobody = `127.0.0.1:${await freePort()}`;
    frozen = await startPrivateServer();
    frozen.server.freeze();
  });
  afterAll(async () => {
    await frozen?.dispose();
  });

  it('a command ends with exit 3 and one line, whether nothing listens or the server is frozen', async () => {
    const [refused, silent] = await Promise.all([
      runCli(['jobs', '--zk', nobody]),
      runCli(['doctor', '--zk', frozen.server.connectString]),
    ]);
    expectOneLine(refused, 3, new RegExp(`^mrtq: ZooKeeper unavailable: .*${nobody}`));
    expectOneLine(silent, 3, /^mrtq: ZooKeeper unavailable: /);
  }, 60_000);

  it('serve with a start-up timeout tries, one log line per attempt, then ends with exit 3 and one line', async () => {
    const result = await runCli(['serve', '--zk', nobody, '--steps', 'simulated', '--http-port', '0'], {
      MRTQ_START_TIMEOUT_MS: '3000',
      // Each wait for a session is half a session timeout: a few attempts fit in the 3 s.
      ZK_SESSION_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'info',
    });
    expectOneLine(
      result,
      3,
      /^mrtq: ZooKeeper unavailable: ZooKeeper session at .*: gave up after \d+ attempts? in/,
    );
    const attempts = result.stdout
      .split('\n')
      .filter((line) => line.includes('"msg":"ZooKeeper unavailable; trying again"'));
    expect(attempts.length).toBeGreaterThan(0);
  }, 60_000);

  it('serve with a connect string it cannot use ends at once with the usage code', async () => {
    const result = await runCli([
      'serve',
      '--zk',
      `${nobody}/bad//chroot`,
      '--steps',
      'simulated',
      '--no-http',
    ]);
    expectOneLine(result, 2, /^mrtq: connect chroot \/bad\/\/chroot: /);
  }, 60_000);

  it('serve waiting for ZooKeeper stops cleanly on SIGTERM', async () => {
    const engine = spawnEngineProcess(nobody, []);
    try {
      await eventually(
        () => logLines(engine).some((line) => line.msg === 'HTTP API listening'),
        Boolean,
        30_000,
      );
      engine.signal('SIGTERM');
      expect(await engine.exited).toBe(0);
      expect(engine.output()).toContain('"msg":"stopped during start-up"');
    } finally {
      engine.signal('SIGKILL');
    }
  }, 60_000);
});
