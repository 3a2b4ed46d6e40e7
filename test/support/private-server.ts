import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/zk-server/free-port.js';
import { createServerProcess, type ServerProcess } from '../../src/zk-server/server-process.js';

/**
 * A ZooKeeper of this test file alone, for tests that freeze or restart the server.
 * tickTime 200 ms: session timeouts from 400 ms to 24 s are allowed.
 */
export async function startPrivateServer(): Promise<{ server: ServerProcess; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'zk-private-'));
  const server = createServerProcess({ dir, clientPort: await freePort(), tickTime: 200 });
  await server.start();
  return {
    server,
    dispose: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
