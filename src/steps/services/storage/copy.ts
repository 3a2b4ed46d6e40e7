import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDigester } from '../../formats/digest.js';
import { OutputError } from '../../output-errors.js';
import { resolveInside } from '../../workdir/files.js';
import type { ManifestEntry } from '../../formats/storage-manifest.js';

/** What a mismatch means when files come from a job's working directory. */
const WORKDIR_CHANGED = 'the working directory changed since downloading (requeue from downloading)';

/** Files copied at once: enough to overlap I/O on many small files, few enough for one disk. */
const PARALLEL_COPIES = 4;

/**
 * Copies one file and checks, in the same pass, that it still has the size and digest the
 * download step recorded: a working directory changed or damaged since then is caught here,
 * before a bad version is stored (seed 001: "check digest for each file").
 */
async function copyOne(
  src: string,
  dest: string,
  entry: ManifestEntry,
  signal: AbortSignal,
  hint: string,
): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  const hash = createDigester(entry.digest.algorithm);
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(src), tap, createWriteStream(dest, { flags: 'wx' }), { signal });
  const handle = await open(dest, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  const value = hash.digest();
  if (size !== entry.size || value !== entry.digest.value.toLowerCase()) {
    throw new OutputError(
      'DIGEST_MISMATCH',
      `${entry.path}: expected ${entry.size} bytes with ${entry.digest.algorithm} ${entry.digest.value}, ` +
        `found ${size} bytes with ${value}; ${hint}`,
    );
  }
}

function assertUniquePaths(files: readonly ManifestEntry[]): void {
  const seen = new Set<string>();
  for (const { path } of files) {
    if (seen.has(path)) throw new OutputError('WORKDIR_INVALID', `${path} is listed twice`);
    seen.add(path);
  }
}

/**
 * Copies `files` from `workDir` into `destRoot` (same relative paths), verified; returns their
 * entries. The first failure stops the other copies, and all of them have settled before it is
 * thrown, so the caller can remove `destRoot` without a copy still writing into it. `hint` ends
 * the message of a mismatch: what the operator should do about it.
 */
export async function copyVerified(
  workDir: string,
  destRoot: string,
  files: readonly ManifestEntry[],
  signal: AbortSignal,
  hint: string = WORKDIR_CHANGED,
): Promise<ManifestEntry[]> {
  assertUniquePaths(files);
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const queue = [...files];
  const worker = async (): Promise<void> => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      both.throwIfAborted();
      await copyOne(
        resolveInside(workDir, entry.path),
        resolveInside(destRoot, entry.path),
        entry,
        both,
        hint,
      );
    }
  };
  const runs = Array.from({ length: Math.min(PARALLEL_COPIES, files.length) }, () =>
    worker().catch((err: unknown) => {
      stop.abort(err);
      throw err;
    }),
  );
  const outcomes = await Promise.allSettled(runs);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw stop.signal.aborted ? stop.signal.reason : failed.reason;
  return files.map(({ path, size, digest }) => ({ path, size, digest }));
}
