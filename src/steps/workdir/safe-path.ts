import { resolve, sep } from 'node:path';
import { IntakeError } from '../intake-errors.js';

/**
 * Normalises a depositor-supplied relative path (a manifest's `nfo:fileName`, a container entry)
 * to `a/b/c`, refusing anything that could land outside the directory it is joined to: absolute
 * paths, drive letters, `..` segments (with `/` or `\` as separator), NUL bytes, and names that
 * reduce to nothing. `what` says where the name came from, for the message.
 */
export function safeRelativePath(name: string, what = 'file name'): string {
  const unsafe = (why: string): IntakeError =>
    new IntakeError('PATH_UNSAFE', `${what} "${name}" is not allowed: ${why}`);
  if (name.includes('\0')) throw unsafe('it contains a NUL byte');
  if (/^[/\\]/.test(name) || /^[a-zA-Z]:/.test(name)) throw unsafe('it is an absolute path');
  // Backslashes count as separators too: an archive made on Windows may use them to climb out.
  const segments = name.split(/[/\\]/);
  if (segments.includes('..')) throw unsafe('it contains a ".." segment');
  const kept = segments.filter((segment) => segment !== '' && segment !== '.');
  if (kept.length === 0) throw unsafe('it names no file');
  return kept.join('/');
}

/**
 * True when `target` is `root` itself or lies below it (both absolute, already resolved: no `..`,
 * no trailing separator but the root directory's), by prefix.
 */
export function isInside(root: string, target: string): boolean {
  if (target === root) return true;
  return target.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * `dir/rel` for a path already passed through {@link safeRelativePath}; checks once more that
 * the result stays below `dir`, so a mistake elsewhere cannot write outside it.
 */
export function joinInside(dir: string, rel: string): string {
  const root = resolve(dir);
  const target = resolve(root, rel);
  if (target === root || !isInside(root, target)) {
    throw new IntakeError('PATH_UNSAFE', `"${rel}" would be written outside ${root}`);
  }
  return target;
}
