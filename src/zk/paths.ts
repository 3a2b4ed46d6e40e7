import { ZkError } from './errors.js';

/** Why `path` is not a valid ZooKeeper node path, or undefined when it is. */
export function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'a node path must be a non-empty string';
  if (!path.startsWith('/')) return 'a node path must start with /';
  if (path === '/') return undefined;
  if (path.endsWith('/')) return 'a node path must not end with /';
  if (path.includes('//')) return 'a node path must not contain an empty name';
  if (/\/\.\.?(\/|$)/.test(path)) return 'a node path must not contain . or .. names';
  // ZooKeeper rejects these server-side; say so before sending.
  if (hasReservedCharacter(path)) return 'a node path must not contain control or reserved characters';
  return undefined;
}

/** The characters ZooKeeper's PathUtils refuses (it checks UTF-16 code units). */
function hasReservedCharacter(path: string): boolean {
  for (let i = 0; i < path.length; i += 1) {
    const c = path.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0) return true;
  }
  return false;
}

/** Throws BAD_ARGUMENTS when `path` is not a valid node path. */
export function validatePath(path: string, operation = 'validate'): void {
  const problem = pathProblem(path);
  if (problem) {
    throw new ZkError('BAD_ARGUMENTS', {
      operation,
      path,
      message: `${operation} ${String(path)}: ${problem}`,
    });
  }
}

/** Joins path segments: `joinPath('/a', 'b/c')` → `/a/b/c`; empty segments are dropped. */
export function joinPath(...parts: string[]): string {
  const names = parts.flatMap((part) => part.split('/')).filter((name) => name.length > 0);
  return '/' + names.join('/');
}

/** Parent of a node path; the root's parent is the root. */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** Last name of a node path (`''` for the root). */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Every ancestor of `path` from the top down, `path` included, root excluded: `/a/b` → `/a`, `/a/b`. */
export function pathPrefixes(path: string): string[] {
  const names = path.split('/').filter((name) => name.length > 0);
  return names.map((_, i) => '/' + names.slice(0, i + 1).join('/'));
}

/** A connection string split into its server list and optional chroot, as the library reads it. */
export interface ParsedConnectString {
  servers: string;
  chroot: string | undefined;
}

/** Splits `"h:p,h:p/chroot"`; a lone trailing `/` means no chroot. */
export function parseConnectString(connectString: string): ParsedConnectString {
  const cut = connectString.indexOf('/');
  if (cut === -1) return { servers: connectString, chroot: undefined };
  const chroot = connectString.slice(cut);
  return { servers: connectString.slice(0, cut), chroot: chroot === '/' ? undefined : chroot };
}
