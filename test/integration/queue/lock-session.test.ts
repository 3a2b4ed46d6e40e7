import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tryLock } from '../../../src/queue/locks.js';
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
});
