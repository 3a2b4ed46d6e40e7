import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, openOffLoop, readFile, rename, rm, type FileHandle } from '../fs/calls.js';
import { dirname, resolve } from 'node:path';
import { isInside } from './safe-path.js';
import { promisify } from 'node:util';
import type { Digest, DigestAlgorithm } from '../ingest-contracts.js';
import { createDigester } from '../formats/digest.js';
import { OutputError } from '../output-errors.js';

/**
 * File helpers of the output side. A file another step or process may read while it is being
 * written again, or whose presence says a step is done, is written to a temporary name in the
 * same directory and renamed into place (writeFileAtomic), so readers see the old content or the
 * new one, never half of it, and a crash leaves at most a stray temporary file. A file that is
 * read only after the step that writes it has committed, and that the step writes whole every
 * time it runs, is written as a new file (writeFileFresh): one rename less.
 */

/**
 * Writes `data` to `path` atomically (temp file, fsync, rename). `durable: false` leaves out the
 * fsync, for the working directory's own records: a power failure may leave such a file empty,
 * which the step that wrote it notices and writes again; what is stored is made durable by the
 * store (storage/copy.ts) — an fsync here cost a journal commit per file, about 12 a one-file object.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Buffer,
  { durable = true }: { durable?: boolean } = {},
): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeAndClose(await withDirectory(dirname(path), () => open(temp, 'w')), data, durable);
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * Opens `path` as a new file. One that is there already is unlinked first, never truncated in
 * place: it may be a hard link into a stored version (the embedded store links what it stores),
 * whose bytes must not change. `offLoop`: the create through the thread pool (openOffLoop).
 */
export async function openFresh(
  path: string,
  { offLoop = false }: { offLoop?: boolean } = {},
): Promise<FileHandle> {
  const create = () => (offLoop ? openOffLoop(path, 'wx') : open(path, 'wx'));
  try {
    return await create();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    await rm(path, { force: true });
    return create();
  }
}

/**
 * Writes `data` to `path` as a new file (openFresh), not atomically: for files a step writes
 * whole again whenever it runs, and nothing reads before the step has committed (processing's
 * ERC, Dublin Core and hand-off manifest), or that are in a directory renamed into place whole
 * (a stored version's manifest). One open, write and close, where writeFileAtomic adds a rename;
 * a crash leaves a partial file, which the step's next run replaces. `durable`: fsynced before
 * it is closed.
 */
export async function writeFileFresh(
  path: string,
  data: string | Buffer,
  { durable = false }: { durable?: boolean } = {},
): Promise<void> {
  await writeAndClose(await withDirectory(dirname(path), () => openFresh(path)), data, durable);
}

/** Writes `data` through `handle`, fsyncs it when `durable`, and closes it whatever happens. */
async function writeAndClose(handle: FileHandle, data: string | Buffer, durable: boolean): Promise<void> {
  try {
    await handle.writeFile(data);
    if (durable) await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Runs `op` (a create or read in `dir`); when it fails with ENOENT, makes `dir` and runs it once
 * more. For directories that are there almost always: no mkdir before every call (a mkdir each
 * was about 8 file-system calls a one-file object).
 */
export async function withDirectory<T>(dir: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(dir, { recursive: true });
    return op();
  }
}

/**
 * Makes the directories holding `paths`, each once, parents first (20,000 files in one folder: one
 * mkdir). With `root` (a directory every path is below): every directory between it and the
 * files is made one by one, parents first, `root` itself too, each with one mkdir (a recursive
 * mkdir of a deep new path first fails at every missing level, then makes them: five calls for
 * `v/producer/files` instead of three).
 */
export async function makeParentDirs(paths: readonly string[], root?: string): Promise<void> {
  const dirs = new Set(paths.map((path) => dirname(path)));
  if (root === undefined) {
    for (const dir of [...dirs].sort()) await mkdir(dir, { recursive: true });
    return;
  }
  const top = resolve(root);
  const below = new Set<string>();
  for (const dir of dirs) {
    for (let at = resolve(dir); isBelow(top, at); at = dirname(at)) below.add(at);
  }
  await mkdir(top, { recursive: true });
  // Sorted, a parent comes before its children.
  for (const dir of [...below].sort()) {
    try {
      await mkdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Reads and parses a JSON file; undefined when it does not exist. */
export async function readJsonIfPresent(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // Empty: written without an fsync (writeFileAtomic's durable: false) before a power failure.
  if (text === '') return undefined;
  return JSON.parse(text) as unknown;
}

/** Digest and size of a file, streamed. */
export async function digestFile(
  path: string,
  algorithm: DigestAlgorithm,
  signal?: AbortSignal,
): Promise<{ digest: Digest; size: number }> {
  const hash = createDigester(algorithm);
  let size = 0;
  for await (const chunk of createReadStream(path, { signal })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { digest: { algorithm, value: hash.digest() }, size };
}

/** Whether `path` is strictly below `root` (after resolving both). */
export function isBelow(root: string, path: string): boolean {
  const top = resolve(root);
  const full = resolve(path);
  return full !== top && isInside(top, full);
}

/** `root/rel`, refused unless it stays inside `root` (no `..`, no absolute paths). */
export function resolveInside(root: string, rel: string): string {
  const full = resolve(root, rel);
  if (!isBelow(root, full) || rel.includes('\0')) {
    throw new OutputError('WORKDIR_INVALID', `path ${JSON.stringify(rel)} leaves ${root}`);
  }
  return full;
}

const ARK = /^ark:\/?[A-Za-z0-9]+\/[\x21-\x7e]{1,240}$/;

/**
 * Refuses anything that is not `ark:/NAAN/name` in printable ASCII, or whose name has `.`/`..`
 * segments: arks name directories of the local store and inventory.
 */
export function assertArk(ark: string): string {
  const segments = ark.split('/');
  if (!ARK.test(ark) || ark.includes('\\') || segments.some((s) => s === '.' || s === '..')) {
    throw new OutputError('IDENTIFIER_INVALID', `${JSON.stringify(ark)} is not an ark (ark:/NAAN/name)`);
  }
  return ark;
}

/** The directory name of an object: the ark with `:` and `/` turned into `_` (as in `/locks`). */
export function objectDirName(ark: string): string {
  return assertArk(ark).replace(/[:/]/g, '_');
}

const run = promisify(execFile);

/**
 * One `syncfs` of the file system holding `dir` (coreutils `sync -f`; Node has no binding): every
 * dirty page of it written, for one journal commit where an fsync a file costs one each (measured
 * by hand here: 5,000 files of 4 KiB 1.25 s an fsync each, 0.07 s so; 2,000 of 64 KiB 0.86 s and
 * 0.22 s). False when `sync -f` cannot run.
 */
export async function syncFileSystem(dir: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await run('sync', ['-f', dir], { signal });
    return true;
  } catch {
    signal?.throwIfAborted();
    return false;
  }
}
