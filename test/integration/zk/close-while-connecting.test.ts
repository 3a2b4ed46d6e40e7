import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeLibClient, createLibClient, handshakeSocket } from '../../../src/zk/library.js';
import { eventually } from '../../support/eventually.js';
import { startPrivateServer } from '../../support/private-server.js';

describe('closing a library client whose connect request is not answered yet', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  beforeAll(async () => {
    server = await startPrivateServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('ignores the answer a thawed server sends afterwards (it used to crash the process)', async () => {
    const thrown: unknown[] = [];
    const record = (err: unknown): void => void thrown.push(err);
    process.on('uncaughtException', record);
    try {
      server.server.freeze();
      const client = createLibClient(server.server.connectString, {
        sessionTimeoutMs: 4000,
        spinDelayMs: 50,
        auth: undefined,
      });
      client.connect();
      // The kernel accepts the connection of a frozen server: the connect request is out, unanswered.
      await eventually(
        () => handshakeSocket(client),
        (socket) => socket !== undefined,
      );
      // A long grace: the server answers while the client is still closing (start-up retries close
      // timed-out connect attempts like this).
      const closing = closeLibClient(client, 5000);
      server.server.thaw();
      await closing;
      expect(client.getState().name).not.toBe('SYNC_CONNECTED');
    } finally {
      server.server.thaw();
      process.off('uncaughtException', record);
    }
    expect(thrown).toEqual([]);
  });
});
