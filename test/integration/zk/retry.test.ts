import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectZk, isZkError, retryWhileUnavailable, type ZkClient } from '../../../src/zk/index.js';
import { eventually } from '../../support/eventually.js';
import { startPrivateServer } from '../../support/private-server.js';

const SESSION_TIMEOUT_MS = 2000;

/** A logger whose lines are kept, to count the attempts it reports. */
function recordingLog(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, sink), lines };
}

describe('retryWhileUnavailable against a frozen server (SIGSTOP)', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let zk: ZkClient;

  beforeAll(async () => {
    server = await startPrivateServer();
    zk = await connectZk({
      connectString: server.server.connectString,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    server?.server.thaw();
    await zk?.close();
    await server?.dispose();
  });

  it('tries a lost request again, one log line per attempt, until the thawed server answers', async () => {
    const { log, lines } = recordingLog();
    server.server.freeze();
    let thawed = false;
    try {
      const created = retryWhileUnavailable(() => zk.mkdirp('/retried/node'), {
        step: 'make a node',
        log,
        baseDelayMs: 50,
      });
      // Frozen past the session timeout: the session is lost, and the retries go to the next one.
      await eventually(
        () => lines.length,
        (n) => n >= 2,
        60_000,
      );
      await eventually(
        () => lines.some((line) => (line.err as { message?: string }).message?.includes('SESSION_EXPIRED')),
        Boolean,
        60_000,
      );
      server.server.thaw();
      thawed = true;
      await created;
    } finally {
      if (!thawed) server.server.thaw();
    }
    expect(await zk.exists('/retried/node')).toBeDefined();
    expect(lines[0]).toMatchObject({
      step: 'make a node',
      attempt: 1,
      msg: 'ZooKeeper unavailable; trying again',
    });
  }, 120_000);

  it('gives up after its deadline with a retryable error saying so, and throws other errors at once', async () => {
    const { log, lines } = recordingLog();
    server.server.freeze();
    try {
      const given = await retryWhileUnavailable(() => zk.getData('/'), {
        step: 'read the root',
        log,
        until: Date.now() + SESSION_TIMEOUT_MS,
      }).catch((err: unknown) => err);
      expect(isZkError(given) && given.retryable).toBe(true);
      expect((given as Error).message).toMatch(/^read the root: gave up after \d+ attempts? in \d+ s: /);
    } finally {
      server.server.thaw();
    }
    await eventually(() => zk.isConnected, Boolean, 60_000);
    const before = lines.length;
    const refused = await retryWhileUnavailable(() => zk.getData('/no/such/node'), {
      step: 'read',
      log,
    }).catch((err: unknown) => err);
    expect(isZkError(refused, 'NO_NODE')).toBe(true);
    expect(lines.length).toBe(before);
  }, 120_000);

  it('stops at once when its signal is aborted', async () => {
    const { log } = recordingLog();
    const stopping = new AbortController();
    server.server.freeze();
    try {
      const tried = retryWhileUnavailable(() => zk.getData('/'), {
        step: 'read',
        log,
        signal: stopping.signal,
      });
      stopping.abort(new Error('asked to stop'));
      await expect(tried).rejects.toThrow('asked to stop');
    } finally {
      server.server.thaw();
    }
  });
});
