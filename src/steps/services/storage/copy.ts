import { createReadStream, createWriteStream } from 'node:fs';
import { link, open, stat } from '../../fs/calls.js';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDigester } from '../../formats/digest.js';
import { OutputError } from '../../output-errors.js';
import { digestFile, makeParentDirs, resolveInside, syncFileSystem } from '../../workdir/files.js';
import type { ManifestEntry } from '../../formats/storage-manifest.js';
import { mapLimit } from '../fetch/limit.js';

/** What a mismatch means when files come from a job's working directory. */
const WORKDIR_CHANGED = 'the working directory changed since downloading (requeue from downloading)';

/** Files placed at once: enough to overlap I/O on many small files, few enough for one disk. */
const PARALLEL_FILES = 8;

/** Above this many files a version is made durable with one syncfs instead of an fsync per file. */
const SYNCFS_FROM_FILES = 32;

/** Errors of `link` that mean "not here": another file system, or one without hard links. */
const CANNOT_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

function mismatch(entry: ManifestEntry, size: number, value: string | undefined, hint: string): OutputError {
  const found = value === undefined ? `${size} bytes` : `${size} bytes with ${value}`;
  return new OutputError(
    'DIGEST_MISMATCH',
    `${entry.path}: expected ${entry.size} bytes with ${entry.digest.algorithm} ${entry.digest.value}, ` +
      `found ${found}; ${hint}`,
  );
}

/** Throws the mismatch unless what was read is the entry's size and digest. */
function checkRead(entry: ManifestEntry, found: { size: number; value: string }, hint: string): void {
  if (found.size !== entry.size || found.value !== entry.digest.value.toLowerCase())
    throw mismatch(entry, found.size, found.value, hint);
}

/** Copies `path` to `dest` (a new file), taking its size and digest in the same pass. */
async function copyDigested(
  path: string,
  dest: string,
  entry: ManifestEntry,
  signal: AbortSignal,
): Promise<{ size: number; value: string }> {
  const hash = createDigester(entry.digest.algorithm);
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(path), tap, createWriteStream(dest, { flags: 'wx' }), { signal });
  return { size, value: hash.digest() };
}

/** How a version takes a file from its source. */
interface Placing {
  /** Read the source for its digest before taking it (a stored version's file), else its size is checked. */
  verify: boolean;
  hint: string;
}

/**
 * Puts one file of the new version in place. Where the source is on the same file system it is
 * hard-linked: the version shares the bytes the download wrote and verified as they streamed, so
 * a gigabyte is stored without being read or written again (the working directory is removed at
 * completion; nothing in this engine writes a downloaded file in place: the fetcher unlinks
 * before it writes). Its size is checked; a stored version's file (an update carries it) is read
 * for its digest first. Elsewhere it is copied, checked in the same pass.
 */
async function placeOne(
  src: string,
  dest: string,
  entry: ManifestEntry,
  signal: AbortSignal,
  placing: Placing,
): Promise<void> {
  if (placing.verify) {
    const { size, digest } = await digestFile(src, entry.digest.algorithm, signal);
    checkRead(entry, { size, value: digest.value }, placing.hint);
  }
  try {
    await link(src, dest);
  } catch (err) {
    if (!CANNOT_LINK.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    checkRead(entry, await copyDigested(src, dest, entry, signal), placing.hint);
    return;
  }
  const { size } = await stat(dest);
  if (size !== entry.size) throw mismatch(entry, size, undefined, placing.hint);
}

function assertUniquePaths(files: readonly ManifestEntry[]): void {
  const seen = new Set<string>();
  for (const { path } of files) {
    if (seen.has(path)) throw new OutputError('WORKDIR_INVALID', `${path} is listed twice`);
    seen.add(path);
  }
}

/**
 * Places `files` from `root` into `destRoot` (same relative paths), checked; returns their
 * entries. The first failure stops the others, and all of them have settled before it is thrown,
 * so the caller can remove `destRoot` without a file still being written into it. `hint` ends
 * the message of a mismatch: what the operator should do about it. `verify` reads each source
 * for its digest (files carried from a stored version).
 */
export async function placeFiles(
  root: string,
  destRoot: string,
  files: readonly ManifestEntry[],
  signal: AbortSignal,
  { hint = WORKDIR_CHANGED, verify = false }: { hint?: string; verify?: boolean } = {},
): Promise<ManifestEntry[]> {
  assertUniquePaths(files);
  await makeParentDirs(
    files.map((entry) => resolveInside(destRoot, entry.path)),
    destRoot,
  );
  await mapLimit(files, PARALLEL_FILES, signal, (entry, _index, each) =>
    placeOne(resolveInside(root, entry.path), resolveInside(destRoot, entry.path), entry, each, {
      verify,
      hint,
    }),
  );
  return files.map(({ path, size, digest }) => ({ path, size, digest }));
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Whether makeDurable syncs `count` files one by one (else with one syncfs). */
export const syncsEachFile = (count: number): boolean => count < SYNCFS_FROM_FILES;

/**
 * Makes `paths` (files under `dir`) durable before a version counts as stored. A few files get an
 * fsync each; many get one syncfs (syncFileSystem). Where `sync -f` cannot run, every file is synced.
 */
export async function makeDurable(dir: string, paths: readonly string[], signal: AbortSignal): Promise<void> {
  if (!syncsEachFile(paths.length) && (await syncFileSystem(dir, signal))) return;
  await mapLimit(paths, PARALLEL_FILES, signal, (path) => fsyncPath(path));
}

/** Makes a rename in `dir` durable (an fsync of the directory). */
export async function syncDirectory(dir: string): Promise<void> {
  await fsyncPath(dir);
}
