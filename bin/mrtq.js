#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, resolved from this package (so `npx mrtq` works from any cwd).
import { register } from 'tsx/esm/api';

register();
// Tracing starts before anything else is loaded (a no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set).
await import('../otel/bootstrap.ts');
await import('../src/cli/main.ts');
