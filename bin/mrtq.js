#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, resolved from this package (so `npx mrtq` works from any cwd).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
