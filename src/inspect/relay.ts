import { createServer } from 'node:net';
import { createInspectorServer } from '@statelyai/inspect/server';

/**
 * Fails with a clear message when `port` is taken. The library's relay has no way to report
 * a listen error: it surfaces as an uncaught exception. It also listens on every interface
 * (it has no host option), so the check does too.
 */
function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be opened (${error.message})`;
      reject(new Error(`inspector port ${port} ${reason}; choose another port`, { cause: error }));
    });
    probe.listen(port, () => probe.close(() => resolve()));
  });
}

export interface Relay {
  port: number;
  stop(): void;
}

/**
 * Starts @statelyai/inspect's local relay: an HTTP page that frames the Stately inspector
 * and a WebSocket server that forwards every message from one client to the others and
 * replays the last 200 to each new client (so a browser opened later still sees the run).
 * It needs no internet; only the framed inspector page does.
 */
export async function startRelay(port: number): Promise<Relay> {
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    // The page the relay serves connects back to this exact port, so 0 ("any") cannot work.
    throw new Error(`inspector port must be an integer from 1 to 65535, got ${port}`);
  }
  await assertPortFree(port);
  const server = createInspectorServer({ port, autoOpen: false });
  return { port, stop: () => server.stop() };
}
