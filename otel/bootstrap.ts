/**
 * Loaded by bin/mrtq.js before the command line: starts OpenTelemetry tracing when an OTLP
 * endpoint is configured (see tracing.ts) and registers its flush with the process's shutdown.
 * The OTEL_* variables are read from the environment only (not from a config file).
 */
import { isatty } from 'node:tty';
import { pino } from 'pino';
import { LOG_LEVELS } from '../src/config/config.js';
import { createLogger } from '../src/logger.js';
import { onTelemetryShutdown } from '../src/telemetry/lifecycle.js';
import { startTracing, tracingSettings, type TracingSettings } from './tracing.js';

let settings: TracingSettings;
try {
  settings = tracingSettings(process.env);
} catch (err) {
  process.stderr.write(`mrtq: ${(err as Error).message}\n`);
  process.exit(2);
}
// A bad LOG_LEVEL is reported by the configuration, with the other settings.
const level = process.env.LOG_LEVEL?.trim().toLowerCase() ?? '';
// Synchronous: its last line may be written just before the process exits.
// LOG_PRETTY as the configuration reads it: true or false, unset for "on a terminal".
const prettyFlag = process.env.LOG_PRETTY?.trim().toLowerCase();
const pretty = prettyFlag === 'true' || (prettyFlag !== 'false' && isatty(1));
const log = createLogger({
  level: LOG_LEVELS.includes(level) ? level : 'info',
  pretty,
  destination: pretty ? undefined : pino.destination({ fd: 1, sync: true }),
});
const tracing = await startTracing(settings, log);
onTelemetryShutdown((timeoutMs) => tracing.shutdown(timeoutMs));
