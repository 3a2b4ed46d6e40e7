import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export interface LoggerOptions {
  level: string;
  /** Human-readable lines (pino-pretty) instead of JSON lines. */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

/**
 * The ids of the span active when a line is logged, so a log line leads to its trace in Jaeger
 * (and a span to its log lines). Nothing is added when no span is active or tracing is off.
 */
export function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId };
}

/** The one root logger; modules take `logger.child({ component })`. */
export function createLogger(options: LoggerOptions | string, destination?: pino.DestinationStream): Logger {
  const {
    level,
    pretty: human,
    destination: given,
  } = typeof options === 'string' ? { level: options, destination } : options;
  const settings: pino.LoggerOptions = { level, mixin: traceFields };
  const out = human
    ? pretty({ sync: true, colorize: !given && process.stdout.isTTY, destination: given ?? 1 })
    : given;
  return out ? pino(settings, out) : pino(settings);
}

export type { Logger };
