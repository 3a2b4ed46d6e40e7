import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { BehaviorSubject } from 'rxjs';
import { hexId } from './convert.js';
import { ZkError, describeRequest } from './errors.js';
import {
  LibStates,
  closeLibClient,
  createLibClient,
  handshakeSocket,
  type LibClient,
  type LibClientOptions,
  type LibState,
} from './library.js';
import { InFlightRequests, type RequestLabel } from './requests.js';
import type { SessionEvent, SessionState } from './types.js';
import { Watchdog, type WatchdogTiming } from './watchdog.js';

export interface SessionSettings {
  /** Connection string including the chroot, if any. */
  connectString: string;
  library: LibClientOptions;
  /** Explicit watchdog interval; by default a fifth of the negotiated session timeout. */
  watchdogIntervalMs: number | undefined;
  log: Logger;
}

/** How long a retired or closed library client may take to hang up before its socket is destroyed. */
const CLOSE_GRACE_MS = 1000;

/**
 * Owns the one live library client of the process and tells the truth about its session:
 * maps the library's states, runs the watchdog, and replaces the client when the session is lost
 * (after expiry the library's client object is dead for good, DESIGN.md §6.3).
 */
export class Session {
  readonly events = new BehaviorSubject<SessionEvent>({
    state: 'disconnected',
    sessionId: '0',
    at: Date.now(),
  });
  readonly requests: InFlightRequests;
  private client: LibClient;
  private readonly listeners = new Map<LibClient, (state: LibState) => void>();
  private readonly watchdog: Watchdog;
  private timingNow: WatchdogTiming;
  /** A handshake seen unanswered at a watchdog tick, and since when. */
  private stalled: { socket: Socket; since: number } | undefined;
  private closed = false;
  private hadSession = false;

  constructor(private readonly settings: SessionSettings) {
    this.requests = new InFlightRequests(() => this.watchdog.heard());
    this.timingNow = this.timing(settings.library.sessionTimeoutMs);
    this.watchdog = new Watchdog(
      {
        isLinkUp: () => this.client.getState() === LibStates.SYNC_CONNECTED,
        probe: (timeoutMs) => this.probe(timeoutMs),
        onSilence: (silentForMs) => this.suspend(silentForMs),
        onAnswer: () => this.resume(),
        onLost: (silentForMs) => this.onLongSilence(silentForMs),
        onLinkDown: () => this.unstickHandshake(),
      },
      this.timingNow,
    );
    this.client = this.spawn();
  }

  /** The library client requests go to right now. */
  get current(): LibClient {
    return this.client;
  }

  get state(): SessionState {
    return this.events.value.state;
  }

  get sessionId(): string {
    return hexId(this.client.getSessionId());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The session timeout the server negotiated (the one asked for until a session is made). */
  get timeoutMs(): number {
    return this.hadSession ? this.client.getSessionTimeout() : this.settings.library.sessionTimeoutMs;
  }

  /** Starts connecting the first client without waiting: the library tries until a session is made. */
  start(): void {
    this.watchdog.start(this.timingNow);
    this.client.connect();
  }

  /** Connects the first client; false (and closed) when no session is made within `timeoutMs`. */
  async open(timeoutMs: number): Promise<boolean> {
    this.start();
    const connected = await this.waitForState('connected', timeoutMs);
    if (!connected) await this.close();
    return connected;
  }

  /** Ends the session (its ephemerals go) and completes `events`. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watchdog.stop();
    this.requests.failAll((label) => new ZkError('CLOSED', { ...label, message: closedMessage(label) }));
    const client = this.client;
    const sessionId = hexId(client.getSessionId());
    this.detach(client);
    await closeLibClient(client, CLOSE_GRACE_MS);
    this.emit('closed', sessionId);
    this.events.complete();
  }

  private spawn(): LibClient {
    const client = createLibClient(this.settings.connectString, this.settings.library);
    const listener = (state: LibState): void => this.onLibraryState(client, state);
    client.on('state', listener);
    this.listeners.set(client, listener);
    return client;
  }

  private detach(client: LibClient): void {
    const listener = this.listeners.get(client);
    if (listener) client.removeListener('state', listener);
    this.listeners.delete(client);
  }

  private onLibraryState(client: LibClient, state: LibState): void {
    if (client !== this.client || this.closed) return;
    if (state === LibStates.SYNC_CONNECTED) this.onConnected();
    else if (state === LibStates.DISCONNECTED) this.onDisconnected();
    else if (state === LibStates.EXPIRED) this.lose('ZooKeeper expired the session');
    else if (state === LibStates.AUTH_FAILED) this.onAuthFailed();
  }

  private onConnected(): void {
    this.hadSession = true;
    this.watchdog.heard();
    this.stalled = undefined;
    this.timingNow = this.timing(this.client.getSessionTimeout());
    this.watchdog.start(this.timingNow);
    this.emit('connected', this.sessionId);
  }

  private onDisconnected(): void {
    // Only a session we had can be "reconnecting"; a replacement still connecting stays `expired`.
    if (this.state === 'connected' || this.state === 'suspended') this.emit('disconnected', this.sessionId);
  }

  private onAuthFailed(): void {
    this.settings.log.error('ZooKeeper refused the credentials; the session is unusable');
    this.requests.failAll((label) => new ZkError('AUTH_FAILED', label));
    this.emit('disconnected', this.sessionId);
  }

  private suspend(silentForMs: number): void {
    if (this.closed || (this.state !== 'connected' && this.state !== 'suspended')) return;
    const failed = this.requests.failAll(
      (label) =>
        new ZkError('CONNECTION_LOSS', {
          ...label,
          message: `${describeRequest(label.operation, label.path)}: CONNECTION_LOSS, ZooKeeper silent for ${silentForMs} ms; the outcome is unknown`,
        }),
    );
    if (this.state !== 'suspended') this.settings.log.warn({ silentForMs, failed }, 'session suspended');
    this.emit('suspended', this.sessionId);
  }

  private resume(): void {
    if (this.state === 'suspended') this.emit('connected', this.sessionId);
  }

  private onLongSilence(silentForMs: number): void {
    // Before the first session there is nothing to lose; open() has its own deadline.
    if (this.hadSession) this.lose(`no answer from ZooKeeper for ${silentForMs} ms`);
    else this.watchdog.resetLossClock();
  }

  /** The session is gone: fail what is in flight, retire the client, start a fresh one. */
  private lose(reason: string): void {
    if (this.closed) return;
    const old = this.client;
    const oldSessionId = hexId(old.getSessionId());
    this.settings.log.warn({ sessionId: oldSessionId, reason }, 'session lost; making a new one');
    this.requests.failAll(
      (label) =>
        new ZkError('SESSION_EXPIRED', {
          ...label,
          message: `${describeRequest(label.operation, label.path)}: SESSION_EXPIRED (${reason}); the outcome is unknown`,
        }),
    );
    if (this.state !== 'expired') this.emit('expired', oldSessionId);
    this.detach(old);
    void closeLibClient(old, CLOSE_GRACE_MS);
    this.client = this.spawn();
    this.watchdog.resetLossClock();
    this.client.connect();
  }

  /**
   * Destroys a connection attempt whose handshake went unanswered for a probe timeout; the library
   * then tries again with the same session, which the server still holds.
   */
  private unstickHandshake(): void {
    const socket = handshakeSocket(this.client);
    if (!socket) {
      this.stalled = undefined;
    } else if (this.stalled?.socket !== socket) {
      this.stalled = { socket, since: Date.now() };
    } else if (Date.now() - this.stalled.since >= this.timingNow.probeTimeoutMs) {
      this.settings.log.warn(
        { stalledMs: Date.now() - this.stalled.since },
        'connect handshake unanswered; retrying',
      );
      this.stalled = undefined;
      socket.destroy();
    }
  }

  private probe(timeoutMs: number): Promise<void> {
    const client = this.client;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('probe timed out')), timeoutMs);
      // exists('/') is answered from the server's memory; with a chroot it checks the chroot node.
      client.exists('/', (err) => {
        clearTimeout(timer);
        if (err) reject(new Error('probe failed', { cause: err }));
        else resolve();
      });
    });
  }

  /** Watchdog timing for a negotiated session timeout; silence is noticed well before it. */
  private timing(sessionTimeoutMs: number): WatchdogTiming {
    const wanted = this.settings.watchdogIntervalMs ?? sessionTimeoutMs / 5;
    const intervalMs = Math.max(10, Math.floor(Math.min(wanted, sessionTimeoutMs / 3)));
    if (intervalMs < wanted) {
      this.settings.log.warn({ wanted, intervalMs, sessionTimeoutMs }, 'watchdog interval shortened');
    }
    return { intervalMs, probeTimeoutMs: intervalMs, lossAfterMs: sessionTimeoutMs };
  }

  private emit(state: SessionState, sessionId: string): void {
    const last = this.events.value;
    if (last.state === state && last.sessionId === sessionId) return;
    if (this.events.closed) return;
    this.settings.log.info({ state, sessionId, previous: last.state }, 'zookeeper session');
    this.events.next({ state, sessionId, at: Date.now() });
  }

  private waitForState(state: SessionState, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        subscription.unsubscribe();
        resolve(false);
      }, timeoutMs);
      const subscription = this.events.subscribe((event) => {
        if (event.state !== state) return;
        clearTimeout(timer);
        queueMicrotask(() => subscription.unsubscribe());
        resolve(true);
      });
    });
  }
}

function closedMessage(label: RequestLabel): string {
  return `${describeRequest(label.operation, label.path)}: CLOSED, the client was closed; the outcome is unknown`;
}
