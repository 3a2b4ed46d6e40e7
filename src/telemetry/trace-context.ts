import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * W3C trace context as stored with a batch and each job (a `traceparent` key in their JSON), so
 * the work of one batch forms one trace across processes and restarts.
 * https://www.w3.org/TR/trace-context/#traceparent-header
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(span: SpanContext): string {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

/** The span context a `traceparent` names, or undefined when it is missing or malformed. */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const span: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(span) ? span : undefined;
}

/** The `traceparent` of the active span; undefined when nothing is traced (no SDK, or no span). */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : undefined;
}

/** A context whose parent is the stored `traceparent` (the root context when there is none). */
export function contextOfTraceparent(value: unknown): Context {
  const parent = parseTraceparent(value);
  return parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
}

/**
 * The parent a span should have: the active span when one is recording (a transition inside a
 * step), else the stored `traceparent` (an operator's action on a job), else none.
 */
export function parentContext(stored: unknown): Context {
  const active = context.active();
  if (trace.getSpan(active)?.isRecording()) return active;
  return contextOfTraceparent(stored);
}

/**
 * Runs `work` as a continuation of the caller's trace when its request carried one (a
 * `traceparent` header): a submission from a traced client joins the client's trace.
 */
export function withCallerContext<T>(headers: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  const caller = propagation.extract(ROOT_CONTEXT, headers);
  return context.with(trace.getSpanContext(caller) ? caller : context.active(), work);
}
