import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readBody } from './http-recorder.js';

/**
 * A loopback local-id service of Merritt's inventory, written from merritt-protocols.md §3
 * ("Local-id ↔ ARK lookups", server routes of `JerseyInv`), not from the engine's client:
 * - `GET {base}/primary/{owner}/{localids}?t=json`: 200, `{"invloc:localContainerState":
 *   {"invloc:exists": …, "invloc:primaryIdentifier": …}}` (exists when any local id is known);
 * - `POST {base}/primary/{ark}/{owner}/{localids}?t=xml`: records each `;`-separated local id
 *   for the owner, 200 with an XML state; 400 REQUEST_INVALID when one already names another ark.
 * Path parts are percent-decoded as Jersey decodes path parameters.
 */
export interface LocalIdRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface LocalIdServer {
  /** The base URL, `http://127.0.0.1:<port>/inventory`. */
  url: string;
  requests: LocalIdRequest[];
  /** `owner\nlocalid` → ark. */
  pairs: Map<string, string>;
  /** Drops the connection of the next `count` requests without answering (a service restarting). */
  dropNext(count: number): void;
  close(): Promise<void>;
}

const BASE = '/inventory/primary/';

/** `LocalMap.getLocalIDs`: a local-id value holds several, separated by `;`. */
const splitLocalIds = (value: string): string[] => value.split(/\s*;\s*/).map((id) => id.trim());

function lookup(pairs: Map<string, string>, owner: string, localIds: string) {
  const found = splitLocalIds(localIds)
    .map((id) => pairs.get(`${owner}\n${id}`))
    .filter((ark): ark is string => ark !== undefined);
  const state: Record<string, unknown> = {
    'invloc:exists': found.length > 0,
    'invloc:ownerID': owner,
    'invloc:localIDs': localIds,
    'invloc:countLocalIDs': found.length,
  };
  if (found[0]) state['invloc:primaryIdentifier'] = found[0];
  return { status: 200, body: JSON.stringify({ 'invloc:localContainerState': state }) };
}

function add(pairs: Map<string, string>, ark: string, owner: string, localIds: string) {
  for (const id of splitLocalIds(localIds)) {
    const existing = pairs.get(`${owner}\n${id}`);
    if (existing && existing !== ark)
      return {
        status: 400,
        body:
          '<exc:exception><exc:statusCode>400</exc:statusCode><exc:status>REQUEST_INVALID</exc:status>' +
          `<exc:error>LocalMap:  objectID already exists and does not match add objectID  - existing objectID=${existing}  - new objectID=${ark}</exc:error></exc:exception>`,
      };
  }
  for (const id of splitLocalIds(localIds)) pairs.set(`${owner}\n${id}`, ark);
  return {
    status: 200,
    body: `<invloc:localContainerState><invloc:primaryIdentifier>${ark}</invloc:primaryIdentifier></invloc:localContainerState>`,
  };
}

/** Starts the loopback local-id service on a free port of 127.0.0.1. */
export async function startLocalIdServer(): Promise<LocalIdServer> {
  const requests: LocalIdRequest[] = [];
  const pairs = new Map<string, string>();
  let drops = 0;
  const answer = (request: LocalIdRequest): { status: number; body: string } => {
    const [path = '', query = ''] = request.url.split('?');
    if (!path.startsWith(BASE)) return { status: 404, body: 'not found' };
    const parts = path.slice(BASE.length).split('/').map(decodeURIComponent);
    if (request.method === 'GET' && parts.length === 2 && query === 't=json')
      return lookup(pairs, parts[0]!, parts[1]!);
    if (request.method === 'POST' && parts.length === 3 && query === 't=xml')
      return add(pairs, parts[0]!, parts[1]!, parts[2]!);
    return { status: 404, body: 'not found' };
  };
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      if (drops > 0) {
        drops -= 1;
        req.socket.destroy();
        return;
      }
      const { status, body: text } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/inventory`;
  return {
    url,
    requests,
    pairs,
    dropNext: (count) => void (drops = count),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
