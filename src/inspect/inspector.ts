import { createInspector } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';
import { connectToRelay } from './relay-connection.js';
import { startRelay } from './relay.js';

/** The relay's port unless told otherwise: the one the Stately docs use. */
export const DEFAULT_INSPECTOR_PORT = 8080;

export interface InspectorOptions {
  /** Port of the relay (HTTP page and WebSocket); default 8080. */
  port?: number;
  /** Host this process connects to and the printed URL names; default 127.0.0.1. */
  host?: string;
  connectTimeoutMs?: number;
}

export interface RunningInspector {
  /** Open this in a browser on the same machine to see the actors in the Stately inspector. */
  url: string;
  /** The relay's WebSocket address (where inspection events flow). */
  relayUrl: string;
  /** Pass to every actor: `createActor(machine, { inspect })`. */
  inspect: Observer<InspectionEvent>;
  /** Closes this process's connection, then the relay. */
  stop(): Promise<void>;
}

/**
 * Starts the local inspector relay and connects a WebSocket inspector to it. Every actor
 * created with `{ inspect }` then reports `@xstate.actor`, `@xstate.event` and
 * `@xstate.snapshot` messages, which the relay forwards to the browser page at `url`.
 *
 * The relay listens on every interface (the library has no host option) and its page
 * connects back to `localhost`, so open it on the same machine or through an SSH tunnel.
 */
export async function startInspector(options: InspectorOptions = {}): Promise<RunningInspector> {
  const host = options.host ?? '127.0.0.1';
  const relay = await startRelay(options.port ?? DEFAULT_INSPECTOR_PORT);
  const relayUrl = `ws://${host}:${relay.port}`;
  const connection = await connectToRelay(relayUrl, options.connectTimeoutMs).catch((error: unknown) => {
    relay.stop();
    throw error;
  });
  const inspector = createInspector({ send: (event) => connection.send(event) });
  return {
    url: `http://${host}:${relay.port}`,
    relayUrl,
    inspect: inspector.inspect,
    async stop() {
      // The inspector hands events over on a zero-delay timer; let those go out first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await connection.close();
      relay.stop();
    },
  };
}
