import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the recorder received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/callback?x=1`. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What the recorder answers. */
export interface ScriptedAnswer {
  status: number;
  body?: string;
  contentType?: string;
  /** Wait this long before answering (timeouts, slow services). */
  delayMs?: number;
}

export type Responder = (request: RecordedRequest) => ScriptedAnswer;

export interface HttpRecorder {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  requests: RecordedRequest[];
  /** Queues answers for the next requests, in order; once used up, `fallback` answers. */
  script(...answers: ScriptedAnswer[]): void;
  /** Answers every request not covered by the script (default 200, empty body). */
  fallback(responder: Responder): void;
  close(): Promise<void>;
}

/** The whole body of a request, as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A real HTTP server on 127.0.0.1 (random port) that records every request and answers from a
 * script of statuses, then from a fallback responder.
 */
export async function startHttpRecorder(): Promise<HttpRecorder> {
  const requests: RecordedRequest[] = [];
  const scripted: ScriptedAnswer[] = [];
  let responder: Responder = () => ({ status: 200 });
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      const answer = scripted.shift() ?? responder(recorded);
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' });
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => scripted.push(...answers),
    fallback: (next) => {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (a server opened and closed at once). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
