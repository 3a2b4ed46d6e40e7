import type { ServerResponse } from 'node:http';
import type { EventLog, EventPosition } from './log.js';

export { DEFAULT_EVENTS_BUFFER_BYTES } from '../../config/config.js';

/** What an event client writes to: a ServerResponse (a fake one in unit tests). */
export type EventSink = Pick<
  ServerResponse,
  'write' | 'end' | 'destroy' | 'once' | 'writableLength' | 'destroyed' | 'writableEnded'
>;

/**
 * One client of an event stream: a position in the log every client shares (see EventLog),
 * written to its socket while the socket takes it, and from its next `drain` on when it does not.
 * A client holds no copy of what it has not taken, so a hundred clients that stopped reading
 * cost the log once, not a hundred times.
 *
 * A client more than `limit` bytes behind (in the log and in its socket's own buffer) is
 * disconnected at once, its socket destroyed: that frees what it holds (`end()` would keep it
 * until the client read it, which a stuck client never does). Frames are not skipped instead: a
 * client that missed a transition would show a state that is no longer true, while a
 * disconnected EventSource reconnects, and `ready` tells it to re-read.
 */
export class EventClient {
  /** The next piece of the log to write; unset until the client joins the log. */
  private cursor: number | undefined;
  /** Where to start in the piece at `cursor` (a resumed client starts inside one). */
  private skip = 0;
  private log: EventLog | undefined;
  /** The socket is backed up: the log is written on from its next `drain`. */
  private waiting = false;

  constructor(
    private readonly sink: EventSink,
    private readonly limit: number,
    /** Called once, when the client is disconnected for falling behind, with how far behind it was. */
    private readonly onTooSlow: (behind: number) => void,
  ) {}

  get gone(): boolean {
    return this.sink.destroyed || this.sink.writableEnded;
  }

  /** The next piece of the log this client writes (the log keeps it until then). */
  get position(): number | undefined {
    return this.cursor;
  }

  /** Sends `first` (its own frame, `ready`), then everything `log` gets from now on. */
  join(log: EventLog, first: string): void {
    this.log = log;
    this.cursor = log.head;
    if (!this.gone) this.write(first);
  }

  /** Sends what `log` holds from `from` on (a reconnected client's missed events), then the rest. */
  resume(log: EventLog, from: EventPosition): boolean {
    this.log = log;
    this.cursor = from.seq;
    this.skip = from.offset;
    return this.catchUp();
  }

  /**
   * Writes what the log got since, as far as the socket takes it; disconnects the client if that
   * leaves it more than the limit behind. False once the client is gone.
   */
  catchUp(): boolean {
    if (this.gone) return false;
    const { log, cursor } = this;
    if (log === undefined || cursor === undefined) return true;
    let next = cursor;
    while (!this.waiting && next < log.head) {
      const piece = log.piece(next++);
      this.write(this.skip > 0 ? piece.slice(this.skip) : piece);
      this.skip = 0;
    }
    this.cursor = next;
    const behind = log.endOffset - log.offsetOf(next) + this.sink.writableLength;
    if (behind <= this.limit) return true;
    this.sink.destroy();
    this.onTooSlow(behind);
    return false;
  }

  /** A comment that keeps an idle stream open: sent only when nothing else waits for the client. */
  keepAlive(text: string): void {
    if (this.gone || this.waiting) return;
    if (this.log !== undefined && this.cursor !== this.log.head) return;
    this.write(text);
  }

  /**
   * Ends the stream, `text` last, unless the client is behind: then it is destroyed, so that a
   * client that stopped reading holds neither its buffer nor the server's close forever.
   */
  close(text?: string): void {
    if (this.gone) return;
    const behind =
      this.waiting || this.sink.writableLength > 0 || (this.log && this.cursor !== this.log.head);
    if (behind) this.sink.destroy();
    else this.sink.end(text);
  }

  private write(text: string): void {
    if (this.sink.write(text)) return;
    this.waiting = true;
    this.sink.once('drain', this.onDrain);
  }

  private readonly onDrain = (): void => {
    this.waiting = false;
    this.catchUp();
  };
}
