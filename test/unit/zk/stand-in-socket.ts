/**
 * A library client whose ConnectionManager talks to a stand-in socket: what it writes is
 * recorded, and the test hands it the server's bytes, chunk by chunk. The whole read and write
 * path of the library (patched and with the in-tree wire code installed) runs, without a server.
 */
import { createLibClient, type LibClient } from '../../../src/zk/library.js';
import { juteByHand } from './jute-by-hand.js';

export interface Manager {
  state: number;
  socket: unknown;
  sessionId: Buffer;
  pendingBuffer: Buffer | null;
  onSocketData(buffer: Buffer): void;
  onSocketConnected(): void;
}

export interface Conversation {
  client: LibClient;
  manager: Manager;
  /** Every buffer written, in order. */
  written: Buffer[];
  /** `cork`, `write`, `uncork`, `destroy`, in order. */
  events: string[];
  /** Hands the manager the server's bytes, one socket chunk per argument. */
  receive(...chunks: Buffer[]): void;
}

/** ConnectionManager.STATES. */
export const STATES = { CONNECTING: 1, CONNECTED: 2 } as const;

/** A client in state CONNECTED on a stand-in socket (nothing is sent anywhere). */
export function converse(): Conversation {
  const client = createLibClient('127.0.0.1:1', {
    sessionTimeoutMs: 30_000,
    spinDelayMs: 1000,
    auth: undefined,
  });
  const manager = (client as unknown as { connectionManager: Manager }).connectionManager;
  const written: Buffer[] = [];
  const events: string[] = [];
  manager.socket = {
    write(buffer: Buffer) {
      events.push('write');
      written.push(buffer);
      return true;
    },
    cork: () => events.push('cork'),
    uncork: () => events.push('uncork'),
    destroy: () => events.push('destroy'),
    setTimeout: () => undefined,
  };
  manager.state = STATES.CONNECTED;
  return {
    client,
    manager,
    written,
    events,
    receive: (...chunks) => chunks.forEach((chunk) => manager.onSocketData(chunk)),
  };
}

/** jute's encodings, by hand. */
export const wire = {
  ...juteByHand,
  stat: (version: number) =>
    Buffer.concat([
      ...[7n, 8n, 1n, 2n].map(wire.long),
      ...[version, 0, 0].map(wire.int),
      wire.long(0n),
      ...[1, 0].map(wire.int),
      wire.long(8n),
    ]),
  /** A whole packet: its length, then `parts`. */
  packet: (...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([wire.int(body.length), body]);
  },
  /** A reply packet: header (xid, zxid, err), then `body`. */
  reply: (xid: number, err: number, ...body: Buffer[]) =>
    wire.packet(wire.int(xid), wire.long(5n), wire.int(err), ...body),
};

/** `buffer` cut into `count` chunks of about equal size. */
export function chunks(buffer: Buffer, count: number): Buffer[] {
  const size = Math.ceil(buffer.length / count);
  return Array.from({ length: count }, (_, i) => buffer.subarray(i * size, (i + 1) * size));
}
