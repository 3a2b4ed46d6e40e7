import type { FileHandle } from '../../fs/calls.js';
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { context, propagation } from '@opentelemetry/api';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { Attr } from '../../../telemetry/attributes.js';
import { annotateActiveSpan } from '../../../telemetry/span.js';
import type { FetchSettings } from '../../../config/ingest-settings.js';
import { FetchError } from '../../intake-errors.js';
import { checkAnnounced, pump, tooLarge, type Expected, type FileProgress } from './sink.js';
import { withRetries } from './retry.js';
import { redactUrl, splitCredentials } from '../../formats/url-credentials.js';

type Response = Dispatcher.ResponseData;

/** The `http(s)://` side of the fetcher: one connection pool, redirects followed. */
export interface HttpSource {
  text(url: string, maxBytes: number, signal: AbortSignal): Promise<string>;
  fill(
    url: string,
    fh: FileHandle,
    progress: FileProgress,
    expected: Expected,
    signal: AbortSignal,
  ): Promise<void>;
  head(url: string, signal: AbortSignal): Promise<number | undefined>;
  close(): Promise<void>;
}

function contentLength(headers: IncomingHttpHeaders): number | undefined {
  const value = Number(headers['content-length']);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Start and total of `Content-Range: bytes 100-199/200`. */
function contentRange(headers: IncomingHttpHeaders): { start: number; total?: number } | undefined {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(String(headers['content-range'] ?? '').trim());
  if (!match) return undefined;
  return { start: Number(match[1]), total: match[2] === '*' ? undefined : Number(match[2]) };
}

/** What `If-Range` may carry: a strong ETag, else Last-Modified (a weak ETag is not allowed there). */
function validatorOf(headers: IncomingHttpHeaders): string | undefined {
  const etag = headers.etag;
  if (typeof etag === 'string' && !etag.startsWith('W/')) return etag;
  const modified = headers['last-modified'];
  return typeof modified === 'string' ? modified : undefined;
}

/** 404/410 are "not found", 5xx may pass, other statuses are the depositor's to fix. */
function statusError(url: string, status: number): FetchError {
  const text = `${url}: HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim();
  if (status === 404 || status === 410) return new FetchError('FETCH_NOT_FOUND', url, text, { status });
  return new FetchError('FETCH_STATUS', url, text, { status, retryable: status >= 500 });
}

/** Frees the connection of a response whose body we do not (or no longer) read. */
function discard(res: Response): void {
  if (res.body.destroyed) return;
  // Destroying an unread body makes undici emit an abort error nobody else would listen to.
  res.body.on('error', () => undefined);
  res.body.destroy();
}

/**
 * A depositor's URL as it is requested (its userinfo sent as an Authorization header instead) and
 * as messages show it (`shown`, the credentials redacted).
 */
interface Remote {
  url: string;
  shown: string;
  headers: Record<string, string>;
}

function remoteOf(raw: string): Remote {
  const { url, authorization } = splitCredentials(raw);
  return { url, shown: redactUrl(raw), headers: authorization ? { authorization } : {} };
}

type Send = (
  remote: Remote,
  method: 'GET' | 'HEAD',
  signal: AbortSignal,
  headers?: Record<string, string>,
) => Promise<Response>;

/** One GET of a small resource, kept in memory up to `maxBytes`. */
async function textOnce(send: Send, remote: Remote, maxBytes: number, signal: AbortSignal): Promise<string> {
  const res = await send(remote, 'GET', signal);
  const { shown } = remote;
  try {
    if (res.statusCode !== 200) throw statusError(shown, res.statusCode);
    checkAnnounced(shown, contentLength(res.headers), maxBytes);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(shown, maxBytes);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    discard(res);
  }
}

/** Creates the HTTP side with the settings' timeouts (connect, headers, idle body). */
export function createHttpSource(settings: FetchSettings): HttpSource {
  const agent = new Agent({
    connect: { timeout: settings.timeoutMs },
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  });
  const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 5 }));
  const retry = (remote: Remote, signal: AbortSignal) => ({ ...settings, url: remote.shown, signal });
  const send: Send = async (remote, method, signal, headers = {}) => {
    const all: Record<string, string> = { 'accept-encoding': 'identity', ...remote.headers, ...headers };
    // The trace continues at the server when it is traced too (W3C traceparent).
    propagation.inject(context.active(), all);
    const res = await request(remote.url, { method, signal, dispatcher, headers: all });
    annotateActiveSpan({ [Attr.httpStatus]: res.statusCode });
    return res;
  };

  return {
    text(url, maxBytes, signal) {
      const remote = remoteOf(url);
      return withRetries(retry(remote, signal), () => textOnce(send, remote, maxBytes, signal));
    },
    fill(url, fh, progress, expected, signal) {
      const remote = remoteOf(url);
      const validator: { value?: string } = {};
      const once = () => fillOnce({ remote, fh, progress, expected, signal, validator, send, settings });
      return withRetries(retry(remote, signal), once);
    },
    async head(url, signal) {
      const remote = remoteOf(url);
      const res = await send(remote, 'HEAD', signal);
      discard(res);
      if (res.statusCode < 200 || res.statusCode > 299) throw statusError(remote.shown, res.statusCode);
      return contentLength(res.headers);
    },
    close: () => agent.close(),
  };
}

interface FillAttempt {
  remote: Remote;
  fh: FileHandle;
  progress: FileProgress;
  expected: Expected;
  signal: AbortSignal;
  /** The validator of the first response, so a resumed range is of the same version of the file. */
  validator: { value?: string };
  send: Send;
  settings: FetchSettings;
}

function rangeHeaders(a: FillAttempt): Record<string, string> {
  if (a.progress.written === 0) return {};
  const headers: Record<string, string> = { range: `bytes=${a.progress.written}-` };
  if (a.validator.value) headers['if-range'] = a.validator.value;
  return headers;
}

/** A body with neither a length nor chunks ends where the connection ends (HTTP/1.0 style). */
function delimitedByEnd(headers: IncomingHttpHeaders): boolean {
  return headers['content-length'] === undefined && headers['transfer-encoding'] === undefined;
}

/**
 * A body delimited by the connection's end (undici takes even a reset for that end) that is
 * shorter than the size the depositor gave was cut off: another attempt may get all of it.
 */
function checkEnded(url: string, written: number, expected: number | undefined): void {
  if (expected === undefined || written >= expected) return;
  const text = `${url}: the connection ended after ${written} of the ${expected} bytes expected`;
  throw new FetchError('FETCH_NETWORK', url, text, { retryable: true });
}

async function startOver(a: FillAttempt): Promise<void> {
  const written = a.progress.touched;
  a.progress.reset();
  // A file nothing was written to is empty (the fetcher creates it): no truncate, a syscall a file.
  if (written) {
    await a.fh.truncate(0);
    a.progress.touched = false;
  }
}

/**
 * One GET of a download. After an interrupted attempt it asks for the rest with a Range
 * request; a 206 starting where we stopped is appended, a 200 starts the file over. It resumes
 * only when a mix of two versions of the file would be noticed: the server gave a validator for
 * `If-Range`, or the depositor's digest will be checked.
 */
async function fillOnce(a: FillAttempt): Promise<void> {
  if (a.progress.written > 0 && !a.validator.value && !a.expected.digest) await startOver(a);
  const resuming = a.progress.written > 0;
  const res = await a.send(a.remote, 'GET', a.signal, rangeHeaders(a));
  const url = a.remote.shown;
  try {
    const range = res.statusCode === 206 ? contentRange(res.headers) : undefined;
    const append = resuming && range?.start === a.progress.written;
    if (!append) {
      if (resuming && (res.statusCode === 206 || res.statusCode === 416)) {
        await startOver(a);
        throw new FetchError('FETCH_NETWORK', url, `${url}: the server did not resume the download`, {
          retryable: true,
        });
      }
      // Any other failure keeps what we have: a later attempt may still resume from it.
      if (res.statusCode !== 200) throw statusError(url, res.statusCode);
      await startOver(a);
      a.validator.value = validatorOf(res.headers);
    }
    const total = append ? range?.total : contentLength(res.headers);
    checkAnnounced(url, total, a.settings.maxFileBytes, a.expected.size);
    const limits = {
      maxBytes: a.settings.maxFileBytes,
      expectedSize: a.expected.size,
      flushBehind: a.settings.flushBehind,
    };
    await pump(res.body, { url, fh: a.fh, progress: a.progress, limits }, a.signal);
    if (delimitedByEnd(res.headers)) checkEnded(url, a.progress.written, a.expected.size);
  } finally {
    discard(res);
  }
}
