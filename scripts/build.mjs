// `npm run build` (and `npm ci`, through `prepare`): compiles src/, machines/ and otel/ to dist/
// with tsconfig.build.json, then writes dist/.build-stamp dated when the build started, so an edit
// made while it ran leaves the build not current (bin/build-state.js). bin/mrtq.js runs dist/ only
// when it is current, and the TypeScript sources through tsx otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { STAMP } from '../bin/build-state.js';

const root = join(import.meta.dirname, '..');
const started = new Date();

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  tsc = undefined;
}
// A production install (`npm ci --omit=dev`, as in the Dockerfile) has no compiler, and may not
// have the sources yet: the command runs them through tsx there, as it always did.
if (!tsc || !existsSync(join(root, 'src'))) {
  const why = tsc ? 'no sources' : 'TypeScript is not installed';
  if (process.env.npm_lifecycle_event === 'prepare') {
    console.log(`build skipped (${why}); mrtq runs from the sources through tsx`);
    process.exit(0);
  }
  console.error(`cannot build: ${why}`);
  process.exit(1);
}

// No stamp while the output is rewritten: a command started meanwhile runs the sources.
rmSync(join(root, 'dist'), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) {
  console.error('build failed: dist/ is left without a stamp, so mrtq runs from the sources');
  process.exit(result.status ?? 1);
}
const stamp = join(root, STAMP);
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
