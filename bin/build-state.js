// Whether the JavaScript build (dist/) is current: bin/mrtq.js runs it only then, so an edit
// under src/ is never run stale. `npm run build` (scripts/build.mjs) writes the stamp last, dated
// when the build started; the build is current when no .ts file (nor tsconfig) was modified after
// that. Directories are not compared: a file added has a new mtime, and a file removed or renamed
// changes behaviour only through the modules that import it, which are edited too. (Files copied
// with their old mtimes kept, e.g. `cp -p` or an archive, are not seen: run `npm run build`.)
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the build compiles, relative to the package root. */
export const SOURCE_DIRS = ['src', 'machines', 'otel'];
/** Compiler settings: a change to them is a change to the output. */
export const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json'];
/** The build's stamp, relative to the package root: its mtime is when the build started. */
export const STAMP = join('dist', '.build-stamp');

function mtimeMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Infinity; // unreadable: assume changed
  }
}

/** The latest modification time (ms) of the sources under `root`. */
export function newestSourceMtime(root) {
  let newest = 0;
  for (const file of SOURCE_FILES) newest = Math.max(newest, mtimeMs(join(root, file)));
  const pending = SOURCE_DIRS.map((dir) => join(root, dir));
  while (pending.length > 0) {
    const dir = pending.pop();
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return Infinity; // a source directory that is gone: the build is of something else
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, mtimeMs(path));
    }
  }
  return newest;
}

/** Whether `root`/dist holds a finished build of the sources as they are now. */
export function isBuildCurrent(root) {
  let stamp;
  try {
    stamp = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return false; // no build, or one that did not finish
  }
  return newestSourceMtime(root) <= stamp;
}
