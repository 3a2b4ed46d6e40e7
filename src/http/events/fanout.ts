import { randomBytes } from 'node:crypto';
import type { TransitionFeed } from '../../streams/transition-feed.js';
import type { EventClient } from './client.js';
import { EventLog } from './log.js';
import { eventId, parseEventId } from './ids.js';

/** Frames of one turn of the event loop are sent together, in pieces of about this size. */
const CHUNK_BYTES = 16 * 1024;

/** How long the subscription and the log outlive the last client, for it to resume. */
export const DEFAULT_LINGER_MS = 60_000;

const frame = (event: string, id: string, data: unknown): string =>
  `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/** How the fanout keeps events for clients that come back. */
export interface FanoutOptions {
  /** Bytes of recent frames kept for reconnecting clients (MRTQ_EVENTS_BUFFER_BYTES). */
  retainBytes: number;
  /** How long the subscription (and so the log) outlives the last client; 0: it ends with it. */
  lingerMs: number;
}

/** A client's place in the stream: new, or resuming after the event id it last saw. */
interface Waiting {
  client: EventClient;
  /** The `Last-Event-ID` the client sent and the log could not resume from. */
  lost?: string;
}

/**
 * The clients of `/events` and their one subscription to the transition feed (held while there
 * are clients, and `lingerMs` after the last one left). Each transition is formatted once, with
 * its id, and the frames of one turn of the event loop are joined once into a piece of the log
 * all clients share: a watch fire brings many transitions at once, and 100 clients cost 100
 * writes per piece rather than per frame, and no copy of their own (see EventClient for how far a
 * client may fall behind).
 *
 * Ids are `<epoch>-<n>`: n counts the events of this process, and the epoch names one
 * subscription (a new one after the subscription ended, and in every process). A client that
 * comes back with a `Last-Event-ID` of this epoch still in the log (the last `retainBytes` of
 * frames) gets the events it missed, in order, and goes on; any other id gets `reset` (re-read
 * your lists) where a new client gets `ready`.
 */
export class EventFanout {
  /** Clients told `ready`, `reset` or resumed: they get every transition. */
  private readonly live = new Set<EventClient>();
  /** Clients waiting for the feed's first full read. */
  private readonly early = new Map<EventClient, Waiting>();
  private readonly log = new EventLog();
  private options: FanoutOptions;
  private stop: (() => void) | undefined;
  private linger: NodeJS.Timeout | undefined;
  private synced = false;
  private epoch = '';
  /** Number of the first event of this epoch, and of the last event made. */
  private epochFirst = 1;
  private last = 0;
  private frames: string[] = [];
  private chunkBytes = 0;
  private scheduled = false;

  constructor(
    private readonly feed: TransitionFeed,
    private readonly onError: (err: unknown) => void,
    options: Partial<FanoutOptions> = {},
  ) {
    this.options = { retainBytes: 0, lingerMs: DEFAULT_LINGER_MS, ...options };
  }

  /** Changes how events are kept for reconnecting clients (the route sets its buffer limit). */
  configure(options: Partial<FanoutOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /** Clients connected now. */
  get size(): number {
    return this.live.size + this.early.size;
  }

  /**
   * Starts sending to `client`. With no `lastEventId`: `ready` (at once when the feed is synced),
   * then transitions. With one: the events after it when the log holds them all, else `reset`.
   */
  add(client: EventClient, lastEventId?: string): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    if (lastEventId !== undefined && this.resume(client, lastEventId)) return;
    const waiting: Waiting = lastEventId === undefined ? { client } : { client, lost: lastEventId };
    if (this.synced) this.start(waiting);
    else this.early.set(client, waiting);
    this.stop ??= this.subscribe();
  }

  /** Stops sending to `client`; the last one leaving ends the subscription, after `lingerMs`. */
  remove(client: EventClient): void {
    this.live.delete(client);
    this.early.delete(client);
    if (this.size > 0) return this.trim();
    if (this.options.lingerMs <= 0 || this.stop === undefined) return this.reset();
    this.trim();
    this.linger ??= setTimeout(() => this.reset(), this.options.lingerMs).unref();
  }

  /** Bytes the log holds: for clients that have not written them, and for clients that come back. */
  get heldBytes(): number {
    return this.log.heldBytes;
  }

  /** Ends every client's stream (`last` as their last frame) and the subscription. */
  closeAll(last?: string): void {
    for (const client of [...this.live, ...this.early.keys()]) client.close(last);
    this.live.clear();
    this.early.clear();
    this.reset();
  }

  /** Resumes `client` after the event `lastEventId` names, if the log holds every event since. */
  private resume(client: EventClient, lastEventId: string): boolean {
    const seen = parseEventId(lastEventId);
    if (!this.synced || seen?.epoch !== this.epoch) return false;
    if (seen.n < this.epochFirst - 1 || seen.n > this.last) return false;
    this.flush();
    const from = seen.n === this.last ? { seq: this.log.head, offset: 0 } : this.log.find(seen.n + 1);
    if (from === undefined) return false;
    if (client.resume(this.log, from)) this.live.add(client);
    return true;
  }

  /** Tells a client where it stands (`ready`, or `reset` for an id it cannot resume from). */
  private start({ client, lost }: Waiting): void {
    this.flush(); // so that the id it is told covers every event before it joins
    const id = eventId(this.epoch, this.last);
    const first =
      lost === undefined
        ? frame('ready', id, {})
        : frame('reset', id, {
            lastEventId: lost,
            message: 'the events after your last one are no longer kept: re-read what you show',
          });
    client.join(this.log, first);
    this.live.add(client);
  }

  private subscribe(): () => void {
    this.epoch = randomBytes(4).toString('hex');
    this.epochFirst = this.last + 1;
    return this.feed.subscribe({
      ready: () => {
        this.synced = true;
        for (const waiting of this.early.values()) this.start(waiting);
        this.early.clear();
      },
      transition: (transition) => {
        const text = frame('transition', eventId(this.epoch, ++this.last), transition);
        this.frames.push(text);
        this.chunkBytes += text.length;
        if (this.chunkBytes >= CHUNK_BYTES) this.flush();
        else if (!this.scheduled) {
          this.scheduled = true;
          setImmediate(this.flush);
        }
      },
      error: (err) => {
        this.onError(err);
        this.closeAll(
          frame('error', eventId(this.epoch, this.last), { message: 'the event stream failed; reconnect' }),
        );
      },
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const frames = this.frames;
    if (frames.length === 0) return;
    this.frames = [];
    this.chunkBytes = 0;
    this.log.append(frames, this.last - frames.length + 1);
    for (const client of this.live) if (!client.catchUp()) this.live.delete(client);
    this.trim();
  };

  /** Drops what every client has written and is beyond what the log keeps for clients that come back. */
  private trim(): void {
    let oldest = this.log.keepFrom(this.options.retainBytes);
    for (const client of this.live) oldest = Math.min(oldest, client.position ?? oldest);
    this.log.trim(oldest);
  }

  private reset(): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    const stop = this.stop;
    this.stop = undefined;
    this.synced = false;
    this.frames = [];
    this.chunkBytes = 0;
    this.log.trim(this.log.head);
    stop?.();
  }
}
