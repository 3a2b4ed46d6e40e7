import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createLibClient, libraryFixesOfReading, libraryWireProblems } from '../../../src/zk/library.js';
import { guardInstalledLibrary } from '../../../src/zk/version-guard.js';
import { collectsReplyChunks, dropsStaleReply, type ProbedManager } from '../../../src/zk/wire/fix-probes.js';
import { installWire, wireProblems } from '../../../src/zk/wire/install.js';
import type { ConnectionManagerClass, JuteModule } from '../../../src/zk/wire/library-shape.js';
import { freshJute, jute, specification } from './jute-modules.js';

// connectZk refuses to run on a library missing a fix patch or the in-tree wire code: the checks
// behind that refusal must see each fix, and see each one missing.

const ConnectionManager = createRequire(import.meta.url)(
  'node-zookeeper-client/lib/ConnectionManager.js',
) as ConnectionManagerClass;

function neverConnected() {
  return createLibClient('127.0.0.1:1', { sessionTimeoutMs: 1000, spinDelayMs: 1000, auth: undefined });
}

/** A manager that reads as upstream 1.1.3 does, in the two places patches 003 and 004 fix. */
function upstreamManager(): ProbedManager {
  return {
    socket: null,
    pendingBuffer: null,
    onSocketConnected() {
      // Upstream leaves pendingBuffer as it is.
    },
    onSocketData(buffer: Buffer) {
      this.pendingBuffer = buffer;
    },
  };
}

describe('the connect-time checks of the installed library', () => {
  it('find every fix patch applied and the wire code in place', () => {
    expect(libraryFixesOfReading(neverConnected())).toEqual({ staleReply: true, replyChunks: true });
    expect(libraryWireProblems()).toEqual([]);
    expect(() => guardInstalledLibrary()).not.toThrow();
  });

  it('see the socket-reading fixes missing on a manager that reads as upstream does', () => {
    expect(dropsStaleReply(upstreamManager())).toBe(false);
    expect(collectsReplyChunks(upstreamManager())).toBe(false);
  });

  it("leave the probed manager's reading state as it was", () => {
    const client = neverConnected();
    const manager = (client as unknown as { connectionManager: ProbedManager }).connectionManager;
    const half = Buffer.from([0, 0, 0, 9, 1]);
    manager.pendingBuffer = half;
    libraryFixesOfReading(client);
    expect(manager.pendingBuffer).toBe(half);
    expect(manager.pendingChunks).toBeNull();
  });

  it('name a piece of the wire code replaced after installation', () => {
    const request = jute.Request.prototype as unknown as { toBuffer: unknown };
    const toBuffer = request.toBuffer;
    request.toBuffer = () => Buffer.alloc(0);
    try {
      expect(libraryWireProblems()).toEqual(['jute.Request.prototype.toBuffer']);
    } finally {
      request.toBuffer = toBuffer;
    }
  });

  it('see a library module the wire code was never installed into, and install it once', () => {
    const fresh = freshJute() as unknown as JuteModule;
    const library = { jute: fresh, specification, ConnectionManager };
    expect(wireProblems(library)).toEqual(['the in-tree wire code is not installed']);
    installWire(library);
    const installed = fresh.Request.prototype.toBuffer;
    installWire(library);
    expect(fresh.Request.prototype.toBuffer).toBe(installed);
    expect(wireProblems(library)).toEqual([]);
  });
});
