import type { EventSink } from '../../../src/http/events/client.js';

/**
 * A response whose operating system takes `absorbs` bytes, then nothing until `take()`: the rest
 * of every write stays buffered, and write() says the buffer is full from `highWaterMark` bytes
 * on, as a socket's does.
 */
export function fakeSink(highWaterMark = 50, absorbs = 0) {
  let room = absorbs;
  let drain: (() => void) | undefined;
  const state = { written: [] as string[], ended: false, destroyed: false, writableLength: 0 };
  const sink = {
    get destroyed() {
      return state.destroyed;
    },
    get writableLength() {
      return state.writableLength;
    },
    get writableEnded() {
      return state.ended;
    },
    write(text: string) {
      state.written.push(text);
      const bytes = Buffer.byteLength(text);
      const taken = state.writableLength === 0 ? Math.min(room, bytes) : 0;
      room -= taken;
      state.writableLength += bytes - taken;
      return state.writableLength < highWaterMark;
    },
    end(text?: string) {
      if (text !== undefined) sink.write(text);
      state.ended = true;
      return sink;
    },
    destroy() {
      state.destroyed = true;
      state.writableLength = 0;
      return sink;
    },
    once(event: string, listener: () => void) {
      if (event === 'drain') drain = listener;
      return sink;
    },
  };
  /** The client takes everything buffered: `drain` if a writer waits for it. */
  const take = (): void => {
    state.writableLength = 0;
    const waiting = drain;
    drain = undefined;
    waiting?.();
  };
  return { sink: sink as unknown as EventSink, state, take };
}
