import type { ServerResponse } from 'node:http';

/**
 * Bytes an event stream may hold for a client that has not taken them (default of
 * `MRTQ_EVENTS_BUFFER_BYTES`). A frame is about 130 bytes, so this is some 2,000 transitions
 * beyond what the operating system's socket buffers already hold (several MB on loopback). 100
 * stuck clients hold at most 25 MiB, and far less heap: the strings they hold are shared.
 */
export const DEFAULT_EVENTS_BUFFER_BYTES = 256 * 1024;

/** What an event client writes to: a ServerResponse (a fake one in unit tests). */
export type EventSink = Pick<
  ServerResponse,
  'write' | 'end' | 'destroy' | 'once' | 'writableLength' | 'destroyed' | 'writableEnded'
>;

/**
 * One client of an event stream, never holding more than `limit` bytes the client has not
 * taken. Once its socket is backed up (`write()` said so), what it is sent is joined into one
 * string written at the next `drain`, rather than queued write by write: a queued write costs
 * several times its bytes in bookkeeping, and the joined string only refers to pieces all clients
 * share (see EventFanout).
 *
 * A client that falls `limit` bytes behind is disconnected at once, its socket destroyed: that
 * frees what it holds (`end()` would keep it until the client read it, which a stuck client never
 * does). Frames are not skipped instead: a client that missed a transition would show a state
 * that is no longer true, while a disconnected EventSource reconnects, and `ready` tells it to
 * re-read.
 */
export class EventClient {
  private pending = '';
  private pendingBytes = 0;
  /** The socket is backed up: `pending` goes out at its next `drain`. */
  private waiting = false;

  constructor(
    private readonly sink: EventSink,
    private readonly limit: number,
    /** Called once, when the client is disconnected for not reading, with the bytes it held. */
    private readonly onTooSlow: (buffered: number) => void,
  ) {}

  /** Sends `text`, or disconnects the client if that would leave more than the limit waiting. */
  send(text: string): boolean {
    if (this.sink.destroyed || this.sink.writableEnded) return false;
    const bytes = Buffer.byteLength(text);
    const buffered = this.sink.writableLength + this.pendingBytes;
    if (buffered + bytes > this.limit) {
      this.pending = '';
      this.sink.destroy();
      this.onTooSlow(buffered);
      return false;
    }
    if (this.waiting) {
      this.pending += text;
      this.pendingBytes += bytes;
    } else {
      this.write(text);
    }
    return true;
  }

  /**
   * Ends the stream, `text` last, unless the client's socket is backed up: then it is destroyed,
   * so that a client that stopped reading holds neither its buffer nor the server's close forever.
   */
  close(text?: string): void {
    if (this.sink.destroyed || this.sink.writableEnded) return;
    if (this.waiting || this.sink.writableLength > 0) this.sink.destroy();
    else this.sink.end(text);
  }

  private write(text: string): void {
    if (this.sink.write(text)) return;
    this.waiting = true;
    this.sink.once('drain', this.flush);
  }

  private readonly flush = (): void => {
    const text = this.pending;
    this.waiting = false;
    this.pending = '';
    this.pendingBytes = 0;
    if (text !== '' && !this.sink.destroyed && !this.sink.writableEnded) this.write(text);
  };
}
