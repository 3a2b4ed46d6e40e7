import { parseTraceparent } from '../../telemetry/trace-context.js';

/** A stored trace, and where to see it when a Jaeger UI is configured. */
export interface TraceLink {
  traceId: string;
  /** `<jaegerUrl>/trace/<traceId>`; absent without a Jaeger URL. */
  url?: string;
}

/**
 * The trace a stored W3C `traceparent` names, linked into Jaeger's UI when `jaegerUrl` is set.
 * Undefined when there is no valid traceparent (work submitted while tracing was off).
 */
export function traceLink(jaegerUrl: string | undefined, traceparent: unknown): TraceLink | undefined {
  const span = parseTraceparent(traceparent);
  if (!span) return undefined;
  if (!jaegerUrl) return { traceId: span.traceId };
  return { traceId: span.traceId, url: `${jaegerUrl.replace(/\/+$/, '')}/trace/${span.traceId}` };
}
