import type { TransitionFeed } from '../streams/transition-feed.js';
import type { EventClient } from './event-client.js';
import { EventLog } from './event-log.js';

/** Frames of one turn of the event loop are sent together, in pieces of about this size. */
const CHUNK_BYTES = 16 * 1024;

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const READY = frame('ready', {});

/**
 * The clients of `/events` and their one subscription to the transition feed (held while there
 * are clients). Each transition is formatted once, and the frames of one turn of the event loop
 * are joined once into a piece of the log all clients share: a watch fire brings many transitions
 * at once, and 100 clients cost 100 writes per piece rather than per frame, and no copy of their
 * own (see EventClient for how far a client may fall behind).
 */
export class EventFanout {
  /** Clients told `ready`: they get every transition. */
  private readonly live = new Set<EventClient>();
  /** Clients waiting for the feed's first full read. */
  private readonly early = new Set<EventClient>();
  private readonly log = new EventLog();
  private stop: (() => void) | undefined;
  private synced = false;
  private chunk = '';
  private scheduled = false;

  constructor(
    private readonly feed: TransitionFeed,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Clients connected now. */
  get size(): number {
    return this.live.size + this.early.size;
  }

  /** Starts sending to `client`: `ready` (at once when the feed is synced), then transitions. */
  add(client: EventClient): void {
    if (this.synced) {
      client.join(this.log, READY);
      this.live.add(client);
    } else {
      this.early.add(client);
    }
    this.stop ??= this.subscribe();
  }

  /** Stops sending to `client`; the last one leaving ends the subscription. */
  remove(client: EventClient): void {
    this.live.delete(client);
    this.early.delete(client);
    if (this.size === 0) this.reset();
    else this.trim();
  }

  /** Bytes the log holds for clients that have not written them yet. */
  get heldBytes(): number {
    return this.log.heldBytes;
  }

  /** Ends every client's stream (`last` as their last frame) and the subscription. */
  closeAll(last?: string): void {
    for (const client of [...this.live, ...this.early]) client.close(last);
    this.live.clear();
    this.early.clear();
    this.reset();
  }

  private subscribe(): () => void {
    return this.feed.subscribe({
      ready: () => {
        this.synced = true;
        this.flush();
        for (const client of this.early) {
          client.join(this.log, READY);
          this.live.add(client);
        }
        this.early.clear();
      },
      transition: (transition) => {
        this.chunk += frame('transition', transition);
        if (this.chunk.length >= CHUNK_BYTES) this.flush();
        else if (!this.scheduled) {
          this.scheduled = true;
          setImmediate(this.flush);
        }
      },
      error: (err) => {
        this.onError(err);
        this.closeAll(frame('error', { message: 'the event stream failed; reconnect' }));
      },
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const chunk = this.chunk;
    this.chunk = '';
    if (chunk === '') return;
    this.log.append(chunk);
    for (const client of this.live) if (!client.catchUp()) this.live.delete(client);
    this.trim();
  };

  /** Drops what every client has written (all of it when there is none). */
  private trim(): void {
    let oldest = this.log.head;
    for (const client of this.live) oldest = Math.min(oldest, client.position ?? oldest);
    this.log.trim(oldest);
  }

  private reset(): void {
    const stop = this.stop;
    this.stop = undefined;
    this.synced = false;
    this.chunk = '';
    this.log.trim(this.log.head);
    stop?.();
  }
}
