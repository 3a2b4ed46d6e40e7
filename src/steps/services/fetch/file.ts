import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from '../../fs/calls.js';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FetchError } from '../../intake-errors.js';
import { checkAnnounced, pump, type Expected, type FileProgress } from './sink.js';
import { isInside } from '../../workdir/safe-path.js';

/** The `file://` side of the fetcher: only regular files below one of `roots`. */
export interface FileSource {
  text(url: string, maxBytes: number, signal: AbortSignal): Promise<string>;
  fill(
    url: string,
    fh: FileHandle,
    progress: FileProgress,
    expected: Expected,
    signal: AbortSignal,
  ): Promise<void>;
  head(url: string): Promise<number>;
}

function refused(url: string, why: string): FetchError {
  return new FetchError('FETCH_REFUSED', url, `${url}: ${why}`);
}

/** The roots as they really are (symlinks followed); roots that do not exist allow nothing. */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(roots.map((root) => realpath(resolve(root)).catch(() => undefined)));
  return resolved.filter((root): root is string => root !== undefined);
}

function outside(url: string, path: string, roots: readonly string[], real?: string): FetchError {
  const allowed = roots.length > 0 ? roots.join(', ') : 'none configured';
  const where = real && real !== path ? `${path} (which resolves to ${real})` : path;
  return refused(url, `${where} is outside the allowed roots (${allowed})`);
}

/**
 * The real path of a `file://` URL, refused unless it lies below one of the roots both as
 * written (after resolving `..`) and after following symlinks.
 */
export async function resolveFileUrl(url: string, roots: readonly string[]): Promise<string> {
  let path: string;
  try {
    path = resolve(fileURLToPath(url));
  } catch (err) {
    throw refused(url, `not a usable file URL (${err instanceof Error ? err.message : String(err)})`);
  }
  const allowed = await realRoots(roots);
  const lexicalRoots = roots.map((root) => resolve(root));
  if (![...allowed, ...lexicalRoots].some((root) => isInside(root, path))) throw outside(url, path, roots);
  let real: string;
  try {
    real = await realpath(path);
  } catch (err) {
    throw new FetchError('FETCH_NOT_FOUND', url, `${url}: no such file ${path}`, { cause: err });
  }
  if (!allowed.some((root) => isInside(root, real))) throw outside(url, path, roots, real);
  return real;
}

async function regularFile(url: string, roots: readonly string[]): Promise<{ path: string; size: number }> {
  const path = await resolveFileUrl(url, roots);
  const info = await stat(path);
  if (!info.isFile()) throw refused(url, `${path} is not a regular file`);
  return { path, size: info.size };
}

/** Creates the `file://` side for the given roots and file size limit. */
export function createFileSource(
  roots: readonly string[],
  maxFileBytes: number,
  flushBehind?: boolean,
): FileSource {
  return {
    async text(url, maxBytes, signal) {
      const { path, size } = await regularFile(url, roots);
      checkAnnounced(url, size, maxBytes);
      return readFile(path, { encoding: 'utf8', signal });
    },
    async fill(url, fh, progress, expected, signal) {
      const { path, size } = await regularFile(url, roots);
      checkAnnounced(url, size, maxFileBytes, expected.size);
      progress.reset();
      const limits = { maxBytes: maxFileBytes, expectedSize: expected.size, flushBehind };
      await pump(createReadStream(path, { signal }), { url, fh, progress, limits }, signal);
    },
    async head(url) {
      return (await regularFile(url, roots)).size;
    },
  };
}
