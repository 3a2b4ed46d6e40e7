import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readBody } from './http-recorder.js';

/**
 * A loopback EZID written from merritt-protocols.md §3 ("Minting and binding the ARK") and the
 * merritt-docker mock it cites, not from the engine's client:
 * - `POST /shoulder/{shoulder}` mints `{shoulder}{7 digits}`: `201 success: {ark}`;
 * - `POST /id/{id}` updates a known id: `200 success: {id}`, else `400 error: bad request - no such identifier`;
 * - `PUT /id/{id}?update_if_exists=yes` creates or updates: `201 success: {id}`.
 * With `credentials`, a request without that Basic authorization is answered 401, as EZID does.
 */
export interface EzidRequest {
  method: string;
  /** Path and query as sent, e.g. `/shoulder/ark:/99999/fk4`. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type EzidRoute = 'mint' | 'update' | 'put';

export interface EzidServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The mint URL of a shoulder: `{url}/shoulder/{shoulder}`. */
  shoulderUrl(shoulder: string): string;
  requests: EzidRequest[];
  /** Requests of one route so far. */
  of(route: EzidRoute): EzidRequest[];
  /** The metadata body last stored for each id. */
  metadata: Map<string, string>;
  /** Answers the next requests of `route` with these before answering by the protocol. */
  failNext(route: EzidRoute, ...answers: { status: number; body: string }[]): void;
  /** Holds every mint answer until the returned function is called. */
  holdMints(): () => void;
  close(): Promise<void>;
}

function routeOf(method: string, path: string): EzidRoute | undefined {
  if (method === 'POST' && path.startsWith('/shoulder/')) return 'mint';
  if (method === 'POST' && path.startsWith('/id/')) return 'update';
  if (method === 'PUT' && path.startsWith('/id/')) return 'put';
  return undefined;
}

/** Starts the loopback EZID on a free port of 127.0.0.1. */
export async function startEzidServer(options: { credentials?: string } = {}): Promise<EzidServer> {
  const requests: EzidRequest[] = [];
  const metadata = new Map<string, string>();
  const scripted = new Map<EzidRoute, { status: number; body: string }[]>();
  let held: Promise<void> | undefined;
  let sequence = 0;
  const expected = options.credentials && `Basic ${Buffer.from(options.credentials).toString('base64')}`;

  const answer = async (request: EzidRequest): Promise<{ status: number; body: string }> => {
    const [path = '', query = ''] = request.url.split('?');
    const route = routeOf(request.method, path);
    if (!route) return { status: 404, body: 'error: not found' };
    if (expected && request.headers.authorization !== expected)
      return { status: 401, body: 'error: unauthorized' };
    if (route === 'mint' && held) await held;
    const next = scripted.get(route)?.shift();
    if (next) return next;
    if (route === 'mint') {
      sequence += 1;
      const ark = `${path.slice('/shoulder/'.length)}${String(sequence).padStart(7, '0')}`;
      metadata.set(ark, request.body);
      return { status: 201, body: `success: ${ark}` };
    }
    const id = path.slice('/id/'.length);
    if (route === 'update' && !metadata.has(id))
      return { status: 400, body: 'error: bad request - no such identifier' };
    if (route === 'put' && query !== 'update_if_exists=yes')
      return { status: 400, body: 'error: bad request - identifier already exists' };
    metadata.set(id, request.body);
    return { status: route === 'put' ? 201 : 200, body: `success: ${id}` };
  };

  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      const { status, body: text } = await answer(request);
      const headers: Record<string, string> = { 'content-type': 'text/plain; charset=UTF-8' };
      if (status === 401) headers['www-authenticate'] = 'Basic realm="EZID"';
      res.writeHead(status, headers).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    shoulderUrl: (shoulder) => `${url}/shoulder/${shoulder}`,
    requests,
    of: (route) => requests.filter((r) => routeOf(r.method, r.url.split('?')[0] ?? '') === route),
    metadata,
    failNext: (route, ...answers) => void scripted.set(route, [...(scripted.get(route) ?? []), ...answers]),
    holdMints() {
      let release = (): void => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
