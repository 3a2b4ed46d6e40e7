import { createServer as createNetServer } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Answers one request; may leave the response open (a server that never answers). */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

/**
 * A real HTTP server on 127.0.0.1 with a free port, answering per path from handlers the test
 * registers (unregistered paths get 404). It records every request, so tests can count attempts.
 */
export interface HttpFixture {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** Answers `path` (exact, without query) with `handler` from now on. */
  route(path: string, handler: Handler): void;
  /** Requests seen so far, in order. */
  requests: RecordedRequest[];
  /** How many requests `path` received (optionally of one method). */
  hits(path: string, method?: string): number;
  /** Stops the server, cutting any connection still open. */
  close(): Promise<void>;
}

/** A route whose path ends in `/` answers every path under it (the longest such prefix wins). */
function prefixRoute(routes: Map<string, Handler>, path: string): Handler | undefined {
  const prefixes = [...routes.keys()].filter((p) => p.endsWith('/') && path.startsWith(p));
  const longest = prefixes.sort((a, b) => b.length - a.length)[0];
  return longest === undefined ? undefined : routes.get(longest);
}

/** Starts a fixture server on a free port of 127.0.0.1. */
export async function startHttpFixture(): Promise<HttpFixture> {
  const routes = new Map<string, Handler>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers });
    const handler =
      routes.get(path) ?? prefixRoute(routes, path) ?? ((_req, r) => void r.writeHead(404).end('not found'));
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    route: (path, handler) => void routes.set(path, handler),
    requests,
    hits: (path, method) =>
      requests.filter((r) => r.path === path && (method === undefined || r.method === method)).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface BytesOptions {
  /** Honour `Range: bytes=N-` with 206 (default true). */
  ranges?: boolean;
  etag?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

function rangeStart(req: IncomingMessage): number | undefined {
  const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  return match ? Number(match[1]) : undefined;
}

/** Serves `body` (200 with Content-Length, or 206 for a `bytes=N-` range when ranges are on). */
export function bytes(body: Buffer | string, options: BytesOptions = {}): Handler {
  const data = Buffer.from(body);
  return (req, res) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.etag) headers.etag = options.etag;
    const start = options.ranges === false ? undefined : rangeStart(req);
    if (start !== undefined && start < data.length) {
      const part = data.subarray(start);
      const range = `bytes ${start}-${data.length - 1}/${data.length}`;
      res.writeHead(206, { ...headers, 'content-length': part.length, 'content-range': range });
      return void res.end(req.method === 'HEAD' ? undefined : part);
    }
    res.writeHead(200, { ...headers, 'content-length': data.length, 'accept-ranges': 'bytes' });
    res.end(req.method === 'HEAD' ? undefined : data);
  };
}

/** Answers `status` to the first `times` requests, then hands over to `then`. */
export function failing(times: number, status: number, then: Handler): Handler {
  let seen = 0;
  return (req, res) => {
    seen += 1;
    if (seen <= times) return void res.writeHead(status).end(`failure ${seen}`);
    return then(req, res);
  };
}

/**
 * The first response announces the whole `body` (with `headers`, by default an ETag) but sends
 * only `cutAt` bytes and drops the connection; later requests go to `then` (e.g. {@link bytes}
 * honouring the Range).
 */
export function cutOnce(
  body: Buffer | string,
  cutAt: number,
  then: Handler,
  headers: Record<string, string> = { etag: '"v1"' },
): Handler {
  const data = Buffer.from(body);
  let cut = false;
  return (req, res) => {
    if (cut) return then(req, res);
    cut = true;
    res.writeHead(200, { ...headers, 'content-length': data.length, 'accept-ranges': 'bytes' });
    res.write(data.subarray(0, cutAt), () => setTimeout(() => res.socket?.destroy(), 20));
  };
}

/** Accepts the request and never answers (until the server closes). */
export function hanging(): Handler {
  return () => undefined;
}
