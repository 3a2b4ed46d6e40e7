#!/usr/bin/env node
// The `mrtq` command, resolved from this package (so `npx mrtq` works from any cwd). It runs the
// JavaScript build (dist/, `npm run build`, which `npm ci` runs) when that build is current, and
// otherwise the TypeScript sources through tsx, so an edit under src/ is never run stale.
import { join } from 'node:path';
import { isBuildCurrent } from './build-state.js';

// Tracing starts before anything else is loaded, and only when it is configured (an OTLP
// variable: the bootstrap checks them all); otherwise the command does not load it at all.
const tracing = Object.entries(process.env).some(
  ([name, value]) => name.startsWith('OTEL_EXPORTER_OTLP_') && value?.trim(),
);

if (process.env.MRTQ_FROM_SOURCE !== '1' && isBuildCurrent(join(import.meta.dirname, '..'))) {
  // dist/ is the build of otel/ and src/ (npm run build), outside the layers lint knows.
  // eslint-disable-next-line boundaries/dependencies
  if (tracing) await import('../dist/otel/bootstrap.js');
  // eslint-disable-next-line boundaries/dependencies
  await import('../dist/src/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  if (tracing) await import('../otel/bootstrap.ts');
  await import('../src/cli/main.ts');
}
