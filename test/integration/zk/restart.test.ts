import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../../../src/zk-server/server-process.js';
import { connectZk, type ZkClient } from '../../../src/zk/index.js';
import { startPrivateServer } from '../../support/private-server.js';
import { SessionRecorder } from './session-recorder.js';

let server: ServerProcess;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ server, dispose } = await startPrivateServer());
});

afterAll(async () => {
  await dispose();
});

/** Generous: a JVM restart on a busy 2-core box must fit in it (the server allows up to 24 s). */
const SESSION_TIMEOUT_MS = 20_000;

describe('server restart within the session timeout', () => {
  it('keeps the session, its ephemerals and its watches', async () => {
    const zk = await connectZk({ connectString: server.connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS });
    const recorder = new SessionRecorder(zk);
    try {
      const sessionId = zk.sessionId;
      await zk.create('/lock', null, 'ephemeral');
      await zk.create('/watched', 'before');
      let fire: (event: { type: string; path: string }) => void = () => {};
      const watchFired = new Promise<{ type: string; path: string }>((resolve) => (fire = resolve));
      await zk.getData('/watched', fire);

      const stoppedAt = Date.now();
      await server.stop();
      await server.start();
      const connected = await recorder.waitFor('connected', 1);
      console.log(`stop → start → reconnected: ${connected.at - stoppedAt} ms`);

      expect(recorder.states).toEqual(['connected', 'disconnected', 'connected']);
      expect(connected.sessionId).toBe(sessionId);
      expect(zk.sessionId).toBe(sessionId);
      expect((await zk.exists('/lock'))?.ephemeralOwner).toBe(sessionId);

      const other = await connectZk({ connectString: server.connectString });
      try {
        await other.setData('/watched', 'after');
      } finally {
        await other.close();
      }
      expect(await watchFired).toEqual({ type: 'changed', path: '/watched' });
    } finally {
      await zk.close();
    }
  });
});

/** Writes on `zk` until the server's last zxid is beyond `zxid` (hex). */
async function advanceZxidBeyond(zk: ZkClient, zxid: string): Promise<void> {
  for (;;) {
    const paths = await Promise.all(
      Array.from({ length: 50 }, () => zk.create('/pad-', null, 'persistent_sequential')),
    );
    const stat = await zk.exists(paths[paths.length - 1]!);
    if (BigInt(`0x${stat!.mzxid}`) > BigInt(`0x${zxid}`)) return;
  }
}

describe('a server that forgot the session', () => {
  it('answers the reconnect with expired, and a new session is made', async () => {
    const zk = await connectZk({ connectString: server.connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS });
    const recorder = new SessionRecorder(zk);
    try {
      const sessionId = zk.sessionId;
      // Anything the client has seen so far, with room for session bookkeeping that follows.
      const seen = (await zk.exists(await zk.create('/mark', 'x')))!.mzxid;
      const margin = (BigInt(`0x${seen}`) + 100n).toString(16);

      const stoppedAt = Date.now();
      await server.stop();
      // Without its snapshot and log the restarted server does not know the session.
      rmSync(join(server.options.dir, 'data'), { recursive: true, force: true });
      await server.start();
      // A server behind the client's last zxid refuses it ("try another server") instead of
      // answering: catch up first, so that the answer is the expiry under test.
      const admin = await connectZk({ connectString: server.connectString });
      try {
        await advanceZxidBeyond(admin, margin);
      } finally {
        await admin.close();
      }

      const expired = await recorder.waitFor('expired');
      const connected = await recorder.waitFor('connected', recorder.states.indexOf('expired'));
      console.log(`stop → wiped restart → expired by the server: ${expired.at - stoppedAt} ms`);
      expect(expired.sessionId).toBe(sessionId);
      expect(connected.sessionId).not.toBe(sessionId);
      // Well inside the session timeout: this expiry came from the server, not the watchdog.
      expect(expired.at - stoppedAt).toBeLessThan(SESSION_TIMEOUT_MS);
      expect(recorder.states).toEqual(['connected', 'disconnected', 'expired', 'connected']);
      expect(await zk.create('/after', 'works')).toBe('/after');
    } finally {
      await zk.close();
    }
  });
});
