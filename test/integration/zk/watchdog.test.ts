import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../../../src/zk-server/server-process.js';
import { ZkError, connectZk } from '../../../src/zk/index.js';
import { sleep, startPrivateServer } from '../../support/private-server.js';
import { SessionRecorder, eventually } from './session-recorder.js';

// A private server: freezing the shared one would stall every other test file.
let server: ServerProcess;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ server, dispose } = await startPrivateServer());
});

afterAll(async () => {
  await dispose();
});

const SESSION_TIMEOUT_MS = 2000;
/** The default: a fifth of the session timeout. Silence is noticed within two intervals. */
const WATCHDOG_INTERVAL_MS = SESSION_TIMEOUT_MS / 5;
/** Long, so that only the watchdog can make an in-flight request fail early. */
const REQUEST_TIMEOUT_MS = 20_000;

describe('watchdog on a frozen server (SIGSTOP)', () => {
  it('suspends fast, fails in-flight requests, and replaces the session lost while frozen', async () => {
    const alice = { scheme: 'digest', credentials: 'alice:secret' } as const;
    const zk = await connectZk({
      connectString: server.connectString,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      auth: alice,
      acl: 'creator',
    });
    const recorder = new SessionRecorder(zk);
    try {
      const firstSession = zk.sessionId;
      await zk.create('/owned', null, 'ephemeral');
      await zk.create('/alices', 'secret');

      const frozenAt = Date.now();
      server.freeze();
      const inFlight = zk.getData('/alices').then(
        () => undefined,
        (err: unknown) => ({ err, at: Date.now() }),
      );

      const suspended = await recorder.waitFor('suspended');
      const detectionMs = suspended.at - frozenAt;
      const failed = await inFlight;
      console.log(`freeze → suspended: ${detectionMs} ms (session timeout ${SESSION_TIMEOUT_MS} ms)`);
      expect(suspended.sessionId).toBe(firstSession);
      expect(detectionMs).toBeLessThan(SESSION_TIMEOUT_MS);
      expect(failed?.err).toBeInstanceOf(ZkError);
      expect(failed?.err).toMatchObject({ code: 'ZK_CONNECTION_LOSS', retryable: true });
      expect(failed!.at - frozenAt).toBeLessThan(SESSION_TIMEOUT_MS);
      expect(zk.isConnected).toBe(false);

      // Still frozen past the session timeout: the session is given up and a new client started.
      const expired = await recorder.waitFor('expired');
      console.log(`freeze → expired: ${expired.at - frozenAt} ms`);
      expect(expired.sessionId).toBe(firstSession);
      expect(expired.at - frozenAt).toBeGreaterThanOrEqual(SESSION_TIMEOUT_MS - WATCHDOG_INTERVAL_MS);
      await sleep(500);
      server.thaw();
      const thawedAt = Date.now();

      const reconnected = await recorder.waitFor('connected', recorder.states.indexOf('expired'));
      console.log(`thaw → connected (new session): ${reconnected.at - thawedAt} ms`);
      expect(reconnected.sessionId).not.toBe(firstSession);
      expect(zk.sessionId).toBe(reconnected.sessionId);
      expect(zk.isConnected).toBe(true);
      expect(recorder.states).toEqual(['connected', 'suspended', 'expired', 'connected']);

      // The new client works, carries the credentials again, and the old session's ephemeral goes.
      expect((await zk.getData('/alices')).data?.toString()).toBe('secret');
      await eventually(async () => (await zk.exists('/owned')) === undefined, 5000, 'old ephemeral removed');
      await zk.create('/owned', null, 'ephemeral');
      expect((await zk.exists('/owned'))?.ephemeralOwner).toBe(reconnected.sessionId);
    } finally {
      server.thaw();
      await zk.close();
    }
  });

  it('a suspension shorter than the session timeout keeps the session', async () => {
    const zk = await connectZk({
      connectString: server.connectString,
      sessionTimeoutMs: 4000,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    const recorder = new SessionRecorder(zk);
    try {
      const sessionId = zk.sessionId;
      await zk.create('/kept', null, 'ephemeral');
      server.freeze();
      await recorder.waitFor('suspended');
      server.thaw();
      const back = await recorder.waitFor('connected', 1);
      expect(back.sessionId).toBe(sessionId);
      expect(recorder.states).toEqual(['connected', 'suspended', 'connected']);
      expect((await zk.exists('/kept'))?.ephemeralOwner).toBe(sessionId);
    } finally {
      server.thaw();
      await zk.close();
    }
  });
});
