import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { decodeBatchStatus, encodeBatchStatus } from '../../../src/queue/tree/wire.js';
import { withChildSpan, withSpan } from '../../../src/telemetry/span.js';
import {
  activeTraceparent,
  contextOfTraceparent,
  formatTraceparent,
  parentContext,
  parseTraceparent,
} from '../../../src/telemetry/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('stored W3C trace context', () => {
  it('round-trips a traceparent', () => {
    const value = `00-${TRACE}-${SPAN}-01`;
    const parsed = parseTraceparent(value);
    expect(parsed).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(formatTraceparent(parsed!)).toBe(value);
    expect(formatTraceparent({ ...parsed!, traceFlags: TraceFlags.NONE })).toBe(`00-${TRACE}-${SPAN}-00`);
  });

  it.each([
    ['missing', undefined],
    ['not a string', 42],
    ['garbage', 'hello'],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['unknown version', `ff-${TRACE}-${SPAN}-01`],
    ['short span id', `00-${TRACE}-00f067aa-01`],
  ])('ignores a %s value (the work starts a new trace instead)', (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
    expect(contextOfTraceparent(value)).toBe(ROOT_CONTEXT);
  });

  it('keeps a batch status traceparent through encode and decode, and omits it when unset', () => {
    const now = new Date('2026-01-02T03:04:05Z');
    const base = { status: 'processing', message: null, expansion: 'started', jobCount: undefined } as const;
    const value = `00-${TRACE}-${SPAN}-01`;
    const withContext = decodeBatchStatus('/s', encodeBatchStatus({ ...base, traceparent: value }, now));
    expect(withContext.traceparent).toBe(value);
    const plain = encodeBatchStatus(base, now).toString();
    expect(plain).not.toContain('traceparent');
    expect(decodeBatchStatus('/s', Buffer.from(plain)).traceparent).toBeUndefined();
  });
});

describe('spans and log lines under a registered SDK', () => {
  const exporter = new InMemorySpanExporter();
  const manager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it('continues a stored context, and a transition inside a step stays a child of the step', async () => {
    const stored = `00-${TRACE}-${SPAN}-01`;
    let inner: string | undefined;
    await withSpan(
      'step estimating',
      {},
      async () => {
        inner = await withSpan('transition estimating', {}, () => Promise.resolve(activeTraceparent()), {
          parent: parentContext(`00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`),
        });
      },
      { parent: contextOfTraceparent(stored) },
    );
    const spans = exporter.getFinishedSpans();
    const step = spans.find((s) => s.name === 'step estimating')!;
    const transition = spans.find((s) => s.name === 'transition estimating')!;
    expect(step.spanContext().traceId).toBe(TRACE);
    expect(step.parentSpanContext?.spanId).toBe(SPAN);
    // The active step wins over the job's stored context.
    expect(transition.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(inner).toBe(formatTraceparent(transition.spanContext()));
  });

  it('starts request spans only inside traced work', async () => {
    exporter.reset();
    await withChildSpan('zk getData', {}, (span) => Promise.resolve(expect(span).toBeUndefined()));
    await withSpan('step x', {}, () =>
      withChildSpan('zk getData', {}, (span) => Promise.resolve(expect(span).toBeDefined())),
    );
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['zk getData', 'step x']);
  });

  it('writes the active span’s trace and span ids into log lines, and none outside spans', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const log = createLogger({ level: 'info', destination: sink });
    log.info('outside');
    let ids: { traceId: string; spanId: string } | undefined;
    await withSpan('step downloading', {}, async (span) => {
      ids = span.spanContext();
      await Promise.resolve(); // the line is written after an await: the context survives it
      log.child({ jobId: 'jid1' }).info('inside');
    });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[1]).toMatchObject({
      msg: 'inside',
      jobId: 'jid1',
      trace_id: ids!.traceId,
      span_id: ids!.spanId,
    });
  });
});

describe('pretty log lines', () => {
  it('prints human-readable lines instead of JSON when asked', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    createLogger({ level: 'info', pretty: true, destination: sink }).info({ jobId: 'jid7' }, 'downloaded');
    expect(out).toContain('INFO');
    expect(out).toContain('downloaded');
    expect(out).toContain('jid7');
    expect(() => JSON.parse(out) as unknown).toThrow();
  });
});
