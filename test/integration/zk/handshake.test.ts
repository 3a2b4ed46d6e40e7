import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectZk, parseConnectString } from '../../../src/zk/index.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { SessionRecorder, eventually } from './session-recorder.js';

const chroot = useZkChroot();

/**
 * A TCP proxy in front of the real ZooKeeper that can cut every connection (as a server restart
 * does) and swallow new ones: accept them, read, never answer — what a client saw after a server
 * restart under load, and what node-zookeeper-client waits on forever.
 */
class SwallowingProxy {
  mode: 'forward' | 'swallow' = 'forward';
  swallowed = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.accept(client));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  /** Cuts every connection, both ways. */
  cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'swallow') {
      this.swallowed += 1;
      client.resume(); // read and drop
      return;
    }
    const upstream = this.track(createConnection(this.target));
    client.pipe(upstream).pipe(client);
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', cut);
    upstream.on('close', cut);
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }
}

let proxy: SwallowingProxy;
let proxyPort: number;

beforeAll(async () => {
  const { servers } = parseConnectString(chroot.connectString());
  const [host = '127.0.0.1', port = '2181'] = (servers.split(',')[0] ?? '').split(':');
  proxy = new SwallowingProxy({ host, port: Number(port) });
  proxyPort = await proxy.listen();
});

afterAll(async () => {
  await proxy.close();
});

const SESSION_TIMEOUT_MS = 3000;

describe('a reconnect whose handshake is never answered', () => {
  it('is abandoned and retried, keeping the session and its ephemerals', async () => {
    const { chroot: root } = parseConnectString(chroot.connectString());
    const zk = await connectZk({
      connectString: `127.0.0.1:${proxyPort}${root ?? ''}`,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
    });
    const recorder = new SessionRecorder(zk);
    try {
      const sessionId = zk.sessionId;
      await zk.create('/owned', null, 'ephemeral');

      proxy.mode = 'swallow';
      const cutAt = Date.now();
      proxy.cutAll();
      await eventually(async () => Promise.resolve(proxy.swallowed > 0), 2000, 'a swallowed reconnect');
      proxy.mode = 'forward';

      const back = await recorder.waitFor('connected', 1);
      console.log(`cut → swallowed handshake → reconnected: ${back.at - cutAt} ms`);
      expect(back.sessionId).toBe(sessionId);
      expect(back.at - cutAt).toBeLessThan(SESSION_TIMEOUT_MS);
      expect(recorder.states).toEqual(['connected', 'disconnected', 'connected']);
      expect(proxy.swallowed).toBe(1);
      expect((await zk.exists('/owned'))?.ephemeralOwner).toBe(sessionId);
    } finally {
      await zk.close();
    }
  });
});
