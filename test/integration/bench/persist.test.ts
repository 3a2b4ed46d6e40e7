import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persist } from '../../../src/bench/retry.js';
import { connectZk, type ZkClient } from '../../../src/zk/index.js';
import { startPrivateServer } from '../../support/private-server.js';

describe("the benchmark's own requests across a ZooKeeper stall", () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let zk: ZkClient;

  beforeAll(async () => {
    server = await startPrivateServer();
    zk = await connectZk({ connectString: server.server.connectString, sessionTimeoutMs: 20_000 });
  });
  afterAll(async () => {
    server?.server.thaw();
    await zk?.close();
    await server?.dispose();
  });

  it('are tried again until the server answers, instead of ending the run', async () => {
    server.server.freeze();
    let attempts = 0;
    const made = persist('make the bench tree', async () => {
      attempts++;
      await zk.mkdirp('/bench/tree');
      return attempts;
    });
    // Frozen longer than a request waits (at most 5 s): the first attempts are lost.
    const deadline = Date.now() + 60_000;
    while (attempts < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts).toBeGreaterThanOrEqual(2);
    server.server.thaw();
    expect(await made).toBeGreaterThanOrEqual(2);
    expect(await zk.exists('/bench/tree')).toBeDefined();
  }, 120_000);
});
