import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { httpCall } from '../../../src/steps/services/http-client.js';
import { Attr } from '../../../src/telemetry/attributes.js';
import { withSpan } from '../../../src/telemetry/span.js';
import { parseTraceparent } from '../../../src/telemetry/trace-context.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';

describe('outgoing HTTP in a step: a child span each, and the trace context sent along', () => {
  const exporter = new InMemorySpanExporter();
  let http: HttpFixture;
  let dir: string;
  let fetcher: Fetcher;

  beforeAll(async () => {
    // What the SDK bootstrap registers (otel/tracing.ts): async context and W3C propagation.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    http = await startHttpFixture();
    dir = await mkdtemp(join(tmpdir(), 'http-spans-'));
    fetcher = createFetcher({
      roots: [dir],
      timeoutMs: 2000,
      retries: 0,
      retryBaseMs: 5,
      maxManifestBytes: 64 * 1024,
      maxFileBytes: 1024 * 1024,
      concurrency: 2,
    });
  });
  afterAll(async () => {
    await fetcher.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  const spanNamed = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;

  it('downloads in a GET span under the step, with URL, status and bytes; the server gets its traceparent', async () => {
    http.route('/obj/a.bin', bytes(Buffer.alloc(3000, 7)));
    const url = http.url('/obj/a.bin').replace('http://', 'http://user:secret@');
    await withSpan('step downloading', {}, () =>
      fetcher.toFile(url, join(dir, 'a.bin'), { signal: AbortSignal.timeout(5000) }),
    );
    const step = spanNamed('step downloading');
    const get = spanNamed('GET');
    expect(get.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(get.attributes).toMatchObject({
      [Attr.httpMethod]: 'GET',
      [Attr.httpStatus]: 200,
      [Attr.bytesDownloaded]: 3000,
      [Attr.url]: http.url('/obj/a.bin'), // the credentials are not recorded
    });
    const sent = parseTraceparent(http.requests.at(-1)?.headers.traceparent);
    expect(sent).toMatchObject({ traceId: get.spanContext().traceId, spanId: get.spanContext().spanId });
  });

  it('records a failed download as an error on its span', async () => {
    http.route('/obj/gone', (_req, res) => void res.writeHead(404).end());
    await expect(
      withSpan('step downloading', {}, () =>
        fetcher.toFile(http.url('/obj/gone'), join(dir, 'gone'), { signal: AbortSignal.timeout(5000) }),
      ),
    ).rejects.toThrow(/404/);
    const get = spanNamed('GET');
    expect(get.status.code).toBe(SpanStatusCode.ERROR);
    expect(get.attributes[Attr.httpStatus]).toBe(404);
  });

  it('sends calls to services (minter, storage, callbacks) in spans of their own', async () => {
    http.route('/mint', (_req, res) => void res.writeHead(503).end('busy'));
    await withSpan('step processing', {}, () =>
      httpCall({
        url: http.url('/mint'),
        method: 'POST',
        body: 'x',
        timeoutMs: 2000,
        signal: AbortSignal.timeout(5000),
      }),
    );
    const post = spanNamed('POST');
    expect(post.parentSpanContext?.spanId).toBe(spanNamed('step processing').spanContext().spanId);
    expect(post.attributes).toMatchObject({ [Attr.httpStatus]: 503, [Attr.url]: http.url('/mint') });
    expect(post.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
    expect(parseTraceparent(http.requests.at(-1)?.headers.traceparent)?.spanId).toBe(
      post.spanContext().spanId,
    );
  });

  it('makes no spans and sends no traceparent outside traced work', async () => {
    http.route('/plain', bytes(Buffer.from('ok')));
    await fetcher.text(http.url('/plain'), { signal: AbortSignal.timeout(5000) });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(http.requests.at(-1)?.headers.traceparent).toBeUndefined();
  });
});
