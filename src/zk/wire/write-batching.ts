/**
 * Requests queued in one turn of the event loop leave in one socket write. The library writes
 * each request as it is queued, one syscall each; a turn that settles a batch of jobs queues
 * dozens. Wrapping `ConnectionManager.prototype.onPacketQueueReadable` corks the socket until the
 * next tick, for every manager made after installation (the library binds the method when it
 * makes a manager, and calls it again on drain).
 */
import type { ConnectionManagerClass, ManagerInternals } from './library-shape.js';

/** The states in which the library writes its queue out (ConnectionManager.STATES). */
function writingStates(ConnectionManager: ConnectionManagerClass): ReadonlySet<number> {
  const { CONNECTED, CONNECTED_READ_ONLY, CLOSING } = ConnectionManager.STATES;
  return new Set([CONNECTED, CONNECTED_READ_ONLY, CLOSING].filter((state) => state !== undefined));
}

/** The wrapper, keeping the library's method it wraps (see {@link installWriteBatching}). */
export type BatchedFlush = ConnectionManagerClass['prototype']['onPacketQueueReadable'] & {
  readonly wrapped: ConnectionManagerClass['prototype']['onPacketQueueReadable'];
};

/** Wraps the library's queue flush (once: a wrapper is not wrapped again). */
export function installWriteBatching(ConnectionManager: ConnectionManagerClass): BatchedFlush {
  const proto = ConnectionManager.prototype;
  const current = proto.onPacketQueueReadable as Partial<BatchedFlush>;
  if (current.wrapped) return current as BatchedFlush;
  const flush = proto.onPacketQueueReadable;
  const writing = writingStates(ConnectionManager);
  const batched = function (this: ManagerInternals): void {
    const socket = this.socket;
    if (socket && writing.has(this.state)) {
      socket.cork();
      process.nextTick(() => socket.uncork());
    }
    flush.call(this);
  };
  proto.onPacketQueueReadable = Object.assign(batched, { wrapped: flush });
  return proto.onPacketQueueReadable as BatchedFlush;
}
