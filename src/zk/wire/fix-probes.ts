/**
 * Probes that the fixes of the library's socket reading are applied (patches 003 and 004 of
 * `patches/node-zookeeper-client+1.1.3+*.patch`). Each runs a ConnectionManager method on a
 * manager that never connected, with a stand-in socket, and puts back what it touched.
 */
import type { Socket } from 'node:net';

/** A ConnectionManager, as far as the probes read and drive it. */
export interface ProbedManager {
  socket?: Socket | null;
  pendingBuffer: Buffer | null;
  pendingChunks?: Buffer[] | null;
  onSocketConnected(): void;
  onSocketData(buffer: Buffer): void;
}

/** Writes nothing anywhere: the connect request the probe makes the manager send is dropped. */
const NOWHERE = { write: () => true } as unknown as Socket;

function withReadState<T>(manager: ProbedManager, probe: () => T): T {
  const { socket, pendingBuffer, pendingChunks } = manager;
  try {
    return probe();
  } finally {
    manager.socket = socket;
    manager.pendingBuffer = pendingBuffer;
    if (pendingChunks === undefined) delete manager.pendingChunks;
    else manager.pendingChunks = pendingChunks;
  }
}

/**
 * Patch 003: a new socket's connect drops the reply the previous socket left half read. Upstream
 * keeps it and reads it as the prefix of the new socket's first reply: garbage.
 */
export function dropsStaleReply(manager: ProbedManager): boolean {
  return withReadState(manager, () => {
    manager.socket = NOWHERE;
    manager.pendingBuffer = Buffer.from([0, 0, 0, 16, 1, 2]);
    manager.onSocketConnected();
    return manager.pendingBuffer === null && !manager.pendingChunks;
  });
}

/**
 * Patch 004: the first chunk of a reply longer than it is kept aside as a chunk to be joined
 * once the reply is whole (upstream keeps it as `pendingBuffer` and copies it anew on every chunk).
 */
export function collectsReplyChunks(manager: ProbedManager): boolean {
  return withReadState(manager, () => {
    manager.pendingBuffer = null;
    const start = Buffer.alloc(8);
    start.writeInt32BE(64, 0);
    manager.onSocketData(start);
    return Array.isArray(manager.pendingChunks) && manager.pendingChunks[0] === start;
  });
}
