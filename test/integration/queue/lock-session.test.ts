import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releasingOnError, tryLock } from '../../../src/queue/locks/lock.js';
import type { ServerProcess } from '../../../src/zk-server/server-process.js';
import { connectZk } from '../../../src/zk/index.js';
import { startPrivateServer } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { SessionRecorder } from '../zk/session-recorder.js';

// A private server: it is frozen to make the client give its session up.
let server: ServerProcess;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ server, dispose } = await startPrivateServer());
});
afterAll(async () => {
  server.thaw();
  await dispose();
});

describe('locks across a session replacement', () => {
  it('no lock is taken while a new session is connecting: it would belong to a session the lock does not name, and never be released', async () => {
    const zk = await connectZk({ connectString: server.connectString, sessionTimeoutMs: 2000 });
    const ctx = queueContext(zk);
    const recorder = new SessionRecorder(zk);
    try {
      await zk.create('/item');
      server.freeze();
      // The watchdog gives the silent session up and starts a new client, which cannot connect yet.
      const expired = await recorder.waitFor('expired');
      expect(zk.sessionId).toBe('0');

      const attempt = tryLock(ctx, '/item').then(
        (result) => ({ result }),
        (err: unknown) => ({ err }),
      );
      server.thaw();
      const outcome = await attempt;
      expect(outcome).toMatchObject({ err: { code: 'ZK_CONNECTION_LOSS', retryable: true } });

      const connected = await recorder.waitFor('connected', recorder.events.indexOf(expired));
      expect(await zk.exists('/item/lock')).toBeUndefined();
      // With the new session, locking works and names the session that made the node.
      const locked = await tryLock(ctx, '/item');
      expect(locked).toMatchObject({ held: true, lock: { sessionId: connected.sessionId } });
      expect((await zk.exists('/item/lock'))?.ephemeralOwner).toBe(connected.sessionId);
    } finally {
      server.thaw();
      await zk.close();
    }
  }, 30_000);

  it('a lock whose item could not be read while the server was silent is released once the same session answers again', async () => {
    const zk = await connectZk({ connectString: server.connectString, sessionTimeoutMs: 10_000 });
    const ctx = queueContext(zk);
    const recorder = new SessionRecorder(zk);
    try {
      await zk.create('/read-me');
      const attempt = await tryLock(ctx, '/read-me');
      if (!attempt.held) throw new Error('not locked');
      server.freeze();
      // The read fails once the watchdog stops trusting the link; so would a release right now.
      const read = releasingOnError(ctx, attempt.lock, () => zk.getData('/read-me'));
      await expect(read).rejects.toMatchObject({ retryable: true });
      const suspended = await recorder.waitFor('suspended');
      server.thaw();
      await recorder.waitFor('connected', recorder.events.indexOf(suspended));
      expect(zk.sessionId).toBe(attempt.lock.sessionId); // the session, and so its lock, lived on
      const deadline = Date.now() + 20_000;
      while ((await zk.exists('/read-me/lock')) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await zk.exists('/read-me/lock')).toBeUndefined();
    } finally {
      server.thaw();
      await zk.close();
    }
  }, 40_000);
});
