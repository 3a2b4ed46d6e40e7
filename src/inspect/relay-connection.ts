import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket } from 'ws';

/**
 * This process's WebSocket connection to the inspector relay, used as the adapter of a
 * `createInspector` inspector. Written here instead of using `createWebSocketInspector`
 * because that client retries every 5 s forever once its socket errors, including after
 * `stop()` while still connecting or after the relay is gone, which keeps a stopping process
 * alive (measured with @statelyai/inspect 0.7.2). This one connects once and closes for good.
 */
export class RelayConnection {
  private closed = false;

  constructor(private readonly socket: WebSocket) {
    // A broken connection only ends inspection; it must never crash the engine.
    socket.on('error', () => {
      this.closed = true;
    });
    socket.on('close', () => {
      this.closed = true;
    });
  }

  /** Sends one inspection event; dropped once the connection is closed. */
  send(event: StatelyInspectionEvent): void {
    if (this.closed || this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(toJson(event));
  }

  /** Closes the connection and waits (at most `timeoutMs`) for the relay to acknowledge. */
  async close(timeoutMs = 2_000): Promise<void> {
    this.closed = true;
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closedEvent = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.close();
    const timer = setTimeout(() => this.socket.terminate(), timeoutMs);
    await closedEvent;
    clearTimeout(timer);
  }
}

/** Opens a connection to the relay at `url`, or rejects saying why within `timeoutMs`. */
export function connectToRelay(url: string, timeoutMs = 5_000): Promise<RelayConnection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const fail = (reason: string, cause?: unknown): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.terminate();
      reject(new Error(`cannot connect to the inspector relay at ${url}: ${reason}`, { cause }));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('error', (error) => fail(error.message, error));
    socket.once('open', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(new RelayConnection(socket));
    });
  });
}

/**
 * JSON for an inspection event. Snapshots serialise through their own `toJSON`; a value seen
 * twice on one path (a cycle) becomes "[Circular]" instead of throwing.
 */
function toJson(event: StatelyInspectionEvent): string {
  const ancestors: object[] = [];
  return JSON.stringify(event, function (this: unknown, _key, value: unknown) {
    if (typeof value === 'function') return { type: (value as { name?: string }).name ?? 'function' };
    if (typeof value !== 'object' || value === null) return value;
    while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
    if (ancestors.includes(value)) return '[Circular]';
    ancestors.push(value);
    return value;
  });
}
