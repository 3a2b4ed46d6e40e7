import { open } from 'node:fs/promises';
import type { HandOffRow } from './manifest.js';
import { MIME_SNIFF_BYTES, mimeTypeOf } from './mime.js';
import { digestFile, resolveInside } from '../../workdir/files.js';
import { sortEntries, type ManifestEntry } from '../../formats/storage-manifest.js';

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

/**
 * The hand-off manifest's rows for `files` of a working directory, as Merritt's ingest describes
 * them (`ManifestBuild.getPostManifest`): a sha256 digest of every file (the one the download
 * step recorded when it is a sha256, else computed now), its size, its MIME type, and the URL
 * `urlOf` gives it. Merritt lists files in directory order, which no one can rely on; the rows
 * are sorted by path, so a re-run after a crash writes the same bytes.
 */
export async function handOffRows(
  workDir: string,
  files: readonly ManifestEntry[],
  urlOf: (path: string) => string,
  signal: AbortSignal,
): Promise<HandOffRow[]> {
  const rows: HandOffRow[] = [];
  for (const file of sortEntries(files)) {
    signal.throwIfAborted();
    const local = resolveInside(workDir, file.path);
    const described =
      file.digest.algorithm === 'sha256'
        ? { digest: { ...file.digest, value: file.digest.value.toLowerCase() }, size: file.size }
        : await digestFile(local, 'sha256', signal);
    rows.push({
      url: urlOf(file.path),
      path: file.path,
      ...described,
      mimeType: mimeTypeOf(file.path, await readHead(local)),
    });
  }
  return rows;
}
