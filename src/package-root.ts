import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let root: string | undefined;

/**
 * The package's root directory, the one holding package.json: found by walking up from this
 * module, so it is the same whether the code runs from its sources (src/…) or from its build
 * (dist/src/…). Files that are not compiled (package.json, profiles/, the dashboard's static
 * files, bench/results) are found from here, never relative to a module.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
    dir = up;
  }
  return (root = dir);
}

/** A path inside the package, e.g. `packagePath('profiles')`. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
