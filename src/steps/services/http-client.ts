import { context, propagation } from '@opentelemetry/api';
import { request } from 'undici';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import { markFailed, withChildSpan } from '../../telemetry/span.js';

/**
 * The one HTTP call the output side makes (minter, storage, inventory, callbacks): a bounded
 * request with a timeout that also honours the step's AbortSignal, whose answer is read as text
 * (capped, so a misbehaving service cannot fill memory).
 */
export interface HttpCall {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
}

const MAX_ANSWER_BYTES = 1024 * 1024;

/** Credentials in the URL (`http://user:secret@host/…`) become a Basic header and leave the URL. */
function splitCredentials(raw: string): { url: string; authorization?: string } {
  const url = new URL(raw);
  if (!url.username && !url.password) return { url: url.toString() };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const token = Buffer.from(`${user}:${password}`).toString('base64');
  return { url: url.toString(), authorization: `Basic ${token}` };
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size >= MAX_ANSWER_BYTES) continue; // drain the rest so the connection can be reused
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

/** Sends one request; network errors and timeouts reject, every HTTP status is an answer. */
export function httpCall(call: HttpCall): Promise<HttpAnswer> {
  const { url, authorization } = splitCredentials(call.url);
  const attributes = { [Attr.httpMethod]: call.method, [Attr.url]: url };
  return withChildSpan(SpanName.http(call.method), attributes, async (span) => {
    const headers: Record<string, string> = { ...call.headers };
    if (authorization) headers.authorization = authorization;
    // The trace continues at the service when it is traced too (W3C traceparent).
    propagation.inject(context.active(), headers);
    const answer = await request(url, {
      method: call.method,
      headers,
      body: call.body,
      signal: AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)]),
    });
    span?.setAttribute(Attr.httpStatus, answer.statusCode);
    if (span && answer.statusCode >= 400) markFailed(span, `HTTP ${answer.statusCode}`);
    const text = await readCapped(answer.body);
    const type = answer.headers['content-type'];
    return { status: answer.statusCode, contentType: typeof type === 'string' ? type : '', text };
  });
}

/** The first line(s) of an answer, for an error message. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A URL without its credentials, for messages and logs. */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return raw;
  }
}

/** `http://a/b/` + `c/d` → `http://a/b/c/d`, whatever slashes either side has. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
