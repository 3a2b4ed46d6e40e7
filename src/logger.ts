import { isatty } from 'node:tty';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger, type LogFn } from 'pino';
import pretty from 'pino-pretty';

export interface LoggerOptions {
  level: string;
  /**
   * Human-readable lines (pino-pretty) instead of JSON lines. Unset: human-readable when the lines
   * go to a terminal, JSON otherwise (a pipe, a file, a log collector). LOG_PRETTY overrides.
   */
  pretty?: boolean;
  /** Where lines go when no `destination` is given: 1 (stdout, the default) or 2 (stderr), written synchronously for 2. */
  fd?: number;
  /** A stream to write to (tests, files); JSON unless `pretty` is true. */
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

const { chindingsSym } = pino.symbols;

/** What every line of a logger already carries: its bindings, and pino's pid and hostname. */
const boundFields = new WeakMap<Logger, Readonly<Record<string, unknown>>>();

function bound(logger: Logger): Readonly<Record<string, unknown>> {
  let fields = boundFields.get(logger);
  if (!fields) {
    const text = (logger as unknown as Record<symbol, string>)[chindingsSym] ?? '';
    fields = JSON.parse(`{${text.slice(1)}}`) as Record<string, unknown>;
    boundFields.set(logger, fields);
  }
  return fields;
}

/**
 * A child bound again to a key its parent has (`child({ component })` of a child with one) would
 * write the key twice: its bindings are rewritten with each key once, the child's value kept.
 */
function onChild(child: Logger): void {
  const holder = child as unknown as Record<symbol, string>;
  const text = holder[chindingsSym] ?? '';
  if (text === '') return;
  // pino's child is an object whose prototype is its parent, its bindings the parent's followed by
  // its own. The common case (every step of every job binds ids its parent lacks) parses only the
  // new bindings: parsing and writing the whole set again was 2 % of a busy engine's CPU.
  const parent = Object.getPrototypeOf(child) as Logger;
  const parentText = (parent as unknown as Record<symbol, string>)[chindingsSym] ?? '';
  if (parentText !== '' && text.startsWith(parentText)) {
    const added = Object.keys(JSON.parse(`{${text.slice(parentText.length + 1)}}`) as object);
    const has = bound(parent);
    if (!added.some((key) => Object.hasOwn(has, key))) return;
  }
  const fields = JSON.parse(`{${text.slice(1)}}`) as Record<string, unknown>;
  const once = JSON.stringify(fields);
  if (once.length - 2 !== text.length - 1) holder[chindingsSym] = `,${once.slice(1, -1)}`;
  boundFields.set(child, fields);
}

/** Keys pino writes on every line itself; `msg` only when the call gives a message. */
const PINO_KEYS = new Set(['level', 'time', 'msg']);

/**
 * A line's fields that repeat a key the line already has are not written twice: a bound key with
 * the same value is dropped from the call's fields; with another value the call's value is the
 * line's (written through a child bound to it); pino's own keys given again (level, time, msg with
 * a message) are kept as `<key>_`.
 */
function logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, level: number): void {
  const [fields, ...rest] = args as unknown[];
  if (fields === null || typeof fields !== 'object' || fields instanceof Error)
    return method.apply(this, args);
  const has = bound(this);
  const hasMessage = rest.length > 0;
  let own: Record<string, unknown> | undefined;
  let rebind: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (Object.hasOwn(has, key)) {
      own ??= { ...fields };
      delete own[key];
      if (JSON.stringify(value) !== JSON.stringify(has[key])) (rebind ??= {})[key] = value;
    } else if (PINO_KEYS.has(key) && (key !== 'msg' || hasMessage)) {
      own ??= { ...fields };
      delete own[key];
      own[`${key}_`] = value;
    }
  }
  if (!own) return method.apply(this, args);
  const target = rebind ? this.child(rebind) : this;
  const label = this.levels.labels[level] as pino.Level;
  const write: (...a: unknown[]) => void = target[label];
  write.call(target, own, ...rest);
}

/**
 * The one root logger; modules take `logger.child({ component })`. JSON lines carry each key once,
 * however children and calls repeat one.
 */
export function createLogger(options: LoggerOptions | string, destination?: pino.DestinationStream): Logger {
  const {
    level,
    pretty: human,
    fd = 1,
    destination: given,
  } = typeof options === 'string' ? { level: options, destination } : options;
  const toTerminal = !given && isatty(fd);
  const settings: pino.LoggerOptions = { level, mixin: traceFields, onChild, hooks: { logMethod } };
  if (human ?? toTerminal) {
    return pino(settings, pretty({ sync: true, colorize: toTerminal, destination: given ?? fd }));
  }
  if (given) return pino(settings, given);
  return fd === 1 ? pino(settings) : pino(settings, pino.destination({ fd, sync: true }));
}

export type { Logger };
