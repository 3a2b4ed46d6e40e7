import { context, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

const tracer = () => trace.getTracer('merritt-ingest-queue');

export interface SpanOptions {
  /** The parent (a stored trace context); default: the active span. */
  parent?: Context;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Records `err` on `span` with status ERROR. */
export function recordError(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : new Error(String(err)));
  span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(err) });
}

/**
 * Runs `work` in a span named `name`, active while it runs: exceptions are recorded with status
 * ERROR and rethrown; the span always ends. Without an SDK registered (no OTel bootstrap) spans
 * are no-ops and cost next to nothing.
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: SpanOptions = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * A span for one request made on behalf of the active span (a ZooKeeper request, an HTTP call),
 * or undefined when no span is recording: requests made outside any traced work (consumers
 * scanning folders, watches) do not start traces of their own.
 */
export function startChildSpan(name: string, attributes: Attributes): Span | undefined {
  const active = context.active();
  if (!trace.getSpan(active)?.isRecording()) return undefined;
  return tracer().startSpan(name, { attributes }, active);
}

/**
 * Runs `work` in a child span of the active span (see startChildSpan); without one, just runs it.
 * `work` gets the span to add what it learns (status code, bytes).
 */
export async function withChildSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const span = startChildSpan(name, attributes);
  if (!span) return work(undefined);
  try {
    return await context.with(trace.setSpan(context.active(), span), () => work(span));
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Adds attributes to the active span (a step reporting what it did); nothing when none is active. */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Marks a span failed without an exception (a step whose failure became the job's `*.failed` event). */
export function markFailed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
