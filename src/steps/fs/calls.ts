import {
  linkSync,
  open as openCallback,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statfsSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import * as pool from 'node:fs/promises';
import { promisify } from 'node:util';
import { InlineFileHandle, settle, type FileHandle } from './inline-handle.js';
import { isOnLocalRoot } from './local-roots.js';

export type { FileHandle } from './inline-handle.js';
export { readdir } from 'node:fs/promises';

const openAsync = promisify(openCallback);

/**
 * The file-system calls of the ingest steps, with `node:fs/promises`'s signatures. Below a root
 * found local (local-roots.ts) a call is made synchronously and its result returned as a promise;
 * elsewhere it goes through the thread pool. Measured here, 5,000 one-file objects (each some
 * 100 opens, mkdirs, renames, links, writes and closes; three alternated pairs, docs/performance.md):
 * the service's CPU 62.2 → 46.1 s and the batch 53.4 → 41.7 s, because on two busy cores each
 * thread-pool round trip woke a pool thread and then the loop, and the loop often waited for the
 * core the woken thread took. What waits for the disk stays asynchronous everywhere: fsync (the
 * handle's `sync`), big writes, `readdir` of folders that may hold 20,000 files, and a recursive
 * `rm`; so does a create where the loop has other work meanwhile (`openOffLoop`).
 */

/** Whether a call on `path` is made inline (a Buffer or URL path, which the steps never pass, is not). */
function inline(path: unknown): boolean {
  return typeof path === 'string' && isOnLocalRoot(path);
}

export async function open(path: string, flags: string | number = 'r', mode?: number): Promise<FileHandle> {
  if (!inline(path)) return pool.open(path, flags, mode);
  return new InlineFileHandle(openSync(path, flags, mode));
}

/**
 * `open`, with the open itself on the thread pool even below a local root, the handle's calls then
 * as `open`'s (inline there). For a creating open where many are made while the loop has other
 * work (a download's files, fetched 8 at a time): on this machine's ext4 a create costs 100-400 µs
 * of kernel CPU, which a pool thread can spend on the other core while the loop parses responses.
 */
export async function openOffLoop(path: string, flags: string | number, mode?: number): Promise<FileHandle> {
  if (!inline(path)) return pool.open(path, flags, mode);
  return new InlineFileHandle(await openAsync(path, flags, mode));
}

export const mkdir = ((path: string, options?: Parameters<typeof mkdirSync>[1]) =>
  inline(path) ? settle(() => mkdirSync(path, options)) : pool.mkdir(path, options)) as typeof pool.mkdir;

export function rename(from: string, to: string): Promise<void> {
  return inline(from) && inline(to) ? settle(() => renameSync(from, to)) : pool.rename(from, to);
}

export function link(existing: string, created: string): Promise<void> {
  return inline(existing) && inline(created)
    ? settle(() => linkSync(existing, created))
    : pool.link(existing, created);
}

export const stat = ((path: string, options?: Parameters<typeof statSync>[1]) =>
  inline(path) ? settle(() => statSync(path, options)) : pool.stat(path, options)) as typeof pool.stat;

export const statfs = ((path: string, options?: Parameters<typeof statfsSync>[1]) =>
  inline(path) ? settle(() => statfsSync(path, options)) : pool.statfs(path, options)) as typeof pool.statfs;

export function unlink(path: string): Promise<void> {
  return inline(path) ? settle(() => unlinkSync(path)) : pool.unlink(path);
}

export function rmdir(path: string): Promise<void> {
  return inline(path) ? settle(() => rmdirSync(path)) : pool.rmdir(path);
}

/** A file inline; a recursive removal (a whole tree) through the pool. */
export function rm(path: string, options?: Parameters<typeof rmSync>[1]): Promise<void> {
  return inline(path) && !options?.recursive ? settle(() => rmSync(path, options)) : pool.rm(path, options);
}

export const readFile = ((path: string, options?: Parameters<typeof readFileSync>[1]) =>
  inline(path)
    ? settle(() => readFileSync(path, options))
    : pool.readFile(path, options)) as typeof pool.readFile;

export function writeFile(
  path: string,
  data: string | Uint8Array,
  options?: Parameters<typeof writeFileSync>[2],
): Promise<void> {
  return inline(path)
    ? settle(() => writeFileSync(path, data, options))
    : pool.writeFile(path, data, options);
}
