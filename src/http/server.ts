import type { AddressInfo } from 'node:net';
import { createHttpApi } from './app.js';
import type { HttpApiDeps } from './deps.js';

/** Where to listen: loopback by default (put a proxy with TLS in front to expose it). */
export interface ListenOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
}

/** A listening API: its base URL, and close() to stop it (open event streams are ended). */
export interface RunningHttpApi {
  url: string;
  close(): Promise<void>;
}

/** Creates the API (see createHttpApi) and listens on `host:port`. */
export async function startHttpApi(deps: HttpApiDeps, options: ListenOptions): Promise<RunningHttpApi> {
  const app = createHttpApi(deps);
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ host, port: options.port });
  } catch (err) {
    await app.close(); // stops following the session; the port is not ours
    throw err;
  }
  const { port } = app.server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  deps.log.info({ url }, 'HTTP API listening');
  return { url, close: () => app.close() };
}
