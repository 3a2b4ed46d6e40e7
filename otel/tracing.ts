import { readFileSync } from 'node:fs';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { packagePath } from '../src/package-root.js';

/** How tracing runs, from the standard OTEL_* environment variables. */
export interface TracingSettings {
  /** OTLP/HTTP endpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT); none: tracing off. */
  endpoint: string | undefined;
  protocol: 'http/protobuf' | 'http/json';
  serviceName: string;
  serviceVersion: string;
  /** OTEL_SDK_DISABLED=true turns tracing off even with an endpoint. */
  disabled: boolean;
}

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Reads the settings; throws naming the variable when one is invalid. */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT)?.trim();
  if (endpoint) {
    try {
      const url = new URL(endpoint);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
    }
  }
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[protocolName]?.trim() || 'http/protobuf') as TracingSettings['protocol'];
  if (!PROTOCOLS.includes(protocol)) {
    throw new Error(`${protocolName} must be one of ${PROTOCOLS.join(', ')}, got "${env[protocolName]}"`);
  }
  return {
    endpoint: endpoint || undefined,
    protocol,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'mrtq',
    serviceVersion: packageVersion(),
    disabled: env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true',
  };
}

/** Where the SDK's own warnings go (an unreachable collector): the service's log. */
export interface TracingLog {
  warn(fields: object, message: string): void;
}

export interface Tracing {
  enabled: boolean;
  /** Flushes what is buffered and stops; resolves within `timeoutMs` even when no collector answers. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * The SDK's diagnostics, at most one line a minute: an exporter that cannot reach its collector
 * fails every few seconds, and a log full of the same line helps nobody.
 */
function throttledDiag(log: TracingLog, intervalMs = 60_000): DiagLogger {
  let last = -Infinity;
  let suppressed = 0;
  const write = (message: string, args: unknown[]) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    last = now;
    const detail = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
    log.warn({ component: 'otel', detail, suppressed }, message);
    suppressed = 0;
  };
  return {
    error: (message, ...args) => write(message, args),
    warn: (message, ...args) => write(message, args),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
}

/**
 * Starts the OpenTelemetry SDK: spans batched and sent over OTLP/HTTP to the configured endpoint,
 * W3C trace context, the async-local context manager. With no endpoint nothing is started: spans
 * stay no-ops, nothing is exported and nothing is printed. Metrics stay on /metrics (Prometheus)
 * and logs on stdout; the SDK is asked for neither.
 */
export async function startTracing(settings: TracingSettings, log: TracingLog): Promise<Tracing> {
  if (!settings.endpoint || settings.disabled) return { enabled: false, shutdown: () => Promise.resolve() };
  // Loaded only when tracing is on: the SDK is a large module graph for a CLI command to load.
  const [{ NodeSDK }, { defaultResource, resourceFromAttributes }, semconv, json, protobuf] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = semconv;
  const Exporter = settings.protocol === 'http/json' ? json.OTLPTraceExporter : protobuf.OTLPTraceExporter;
  const sdk = new NodeSDK({
    resource: defaultResource().merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: settings.serviceName,
        [ATTR_SERVICE_VERSION]: settings.serviceVersion,
      }),
    ),
    // The exporter reads the endpoint variables itself (a base endpoint gets /v1/traces appended).
    traceExporter: new Exporter(),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  if (!process.env.OTEL_LOG_LEVEL) diag.setLogger(throttledDiag(log), DiagLogLevel.WARN);
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown(timeoutMs = 5000) {
      stopped ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          log.warn({ component: 'otel', timeoutMs }, 'spans not all flushed before shutdown');
          resolve();
        }, timeoutMs);
        timer.unref();
        sdk.shutdown().then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          (err: unknown) => {
            clearTimeout(timer);
            log.warn({ component: 'otel', err }, 'tracing shutdown failed');
            resolve();
          },
        );
      });
      return stopped;
    },
  };
}
