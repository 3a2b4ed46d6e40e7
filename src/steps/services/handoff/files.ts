import { open } from '../../fs/calls.js';
import type { HandOffRow } from './manifest.js';
import { MIME_SNIFF_BYTES, mimeTypeOf } from './mime.js';
import { digestFile, resolveInside } from '../../workdir/files.js';
import { sortEntries, type ManifestEntry } from '../../formats/storage-manifest.js';
import { mapLimit } from '../fetch/limit.js';

/** The first bytes of a file, for its MIME type. */
async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MIME_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** A file of the working directory, with what its download already learnt of it, when it did. */
export type DescribedFile = ManifestEntry & { sha256?: string; mimeType?: string };

/** Files read at once when their sha256 or MIME type must be read from disk. */
const PARALLEL_READS = 8;

/** One row: from what the download recorded, reading the file only for what it did not. */
async function rowOf(
  workDir: string,
  file: DescribedFile,
  urlOf: (path: string) => string,
  signal: AbortSignal,
): Promise<HandOffRow> {
  signal.throwIfAborted();
  const local = resolveInside(workDir, file.path);
  const sha256 = file.digest.algorithm === 'sha256' ? file.digest.value : file.sha256;
  const described =
    sha256 !== undefined
      ? { digest: { algorithm: 'sha256' as const, value: sha256.toLowerCase() }, size: file.size }
      : await digestFile(local, 'sha256', signal);
  return {
    url: urlOf(file.path),
    path: file.path,
    ...described,
    mimeType: file.mimeType ?? mimeTypeOf(file.path, await readHead(local)),
  };
}

/**
 * The hand-off manifest's rows for `files` of a working directory, as Merritt's ingest describes
 * them (`ManifestBuild.getPostManifest`): a sha256 digest of every file, its size, its MIME type,
 * and the URL `urlOf` gives it. The sha256 and the MIME type are the ones the download took in its
 * one pass over the bytes; a file without them (a system file, a container's entry, a record of an
 * older version) is read for them. Merritt lists files in directory order, which no one can rely
 * on; the rows are sorted by path, so a re-run after a crash writes the same bytes.
 */
export async function handOffRows(
  workDir: string,
  files: readonly DescribedFile[],
  urlOf: (path: string) => string,
  signal: AbortSignal,
): Promise<HandOffRow[]> {
  return mapLimit(sortEntries(files), PARALLEL_READS, signal, (file, _index, each) =>
    rowOf(workDir, file, urlOf, each),
  );
}
