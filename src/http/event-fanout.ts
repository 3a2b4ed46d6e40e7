import type { TransitionFeed } from '../streams/transition-feed.js';
import type { EventClient } from './event-client.js';

/** Frames of one turn of the event loop are sent together, in pieces of about this size. */
const CHUNK_BYTES = 16 * 1024;

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const READY = frame('ready', {});

/**
 * The clients of `/events` and their one subscription to the transition feed (held while there
 * are clients). Each transition is formatted once, and the frames of one turn of the event loop
 * are joined once and handed to every client as the same string: a watch fire brings many
 * transitions at once, and 100 clients cost 100 writes per turn rather than per frame, without a
 * copy of their own (see EventClient for what a client that does not read may hold).
 */
export class EventFanout {
  /** Clients told `ready`: they get every transition. */
  private readonly live = new Set<EventClient>();
  /** Clients waiting for the feed's first full read. */
  private readonly early = new Set<EventClient>();
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
      client.send(READY);
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
        for (const client of this.early) {
          client.send(READY);
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
    if (chunk !== '') for (const client of this.live) client.send(chunk);
  };

  private reset(): void {
    const stop = this.stop;
    this.stop = undefined;
    this.synced = false;
    this.chunk = '';
    stop?.();
  }
}
