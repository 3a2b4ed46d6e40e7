import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { unpackCompressed } from './compressed.js';
import { Budget, invalid, type UnpackContext, type UnpackedFile } from './entry.js';
import { unpackTar } from './tar.js';
import { unpackZip } from './zip.js';
import type { ContainerLimits } from '../../../config/ingest-settings.js';

export type { UnpackedFile } from './entry.js';

/**
 * Container formats this engine unpacks, Merritt's: zip, tar, and a gzip or bzip2 stream (of a
 * tar, or of one file). A gzip named `.tar.gz`, `.tgz` or `.tarz` is a `tar`: the parser ungzips.
 */
export type ContainerFormat = 'zip' | 'tar' | 'gzip' | 'bzip2';

/** Names of a gzipped tar, read by the tar parser as it streams. */
const GZIPPED_TAR = /(?:\.tar\.gz|\.tgz|tarz)$/;

/**
 * The format of a container from its first bytes (its name may say nothing): zip, gzip, bzip2
 * or POSIX tar; a `.tar` name for old tars without the `ustar` magic. Undefined for anything else.
 */
export async function containerFormat(
  archive: string,
  name = basename(archive),
): Promise<ContainerFormat | undefined> {
  const fh = await open(archive, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const magic = head.subarray(0, 4).toString('latin1');
    if (magic === 'PK\x03\x04' || magic === 'PK\x05\x06') return 'zip';
    if (head[0] === 0x1f && head[1] === 0x8b) return GZIPPED_TAR.test(name) ? 'tar' : 'gzip';
    if (magic.startsWith('BZh')) return 'bzip2';
    if (bytesRead >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
    return /\.tar$/i.test(name) ? 'tar' : undefined;
  } finally {
    await fh.close();
  }
}

/**
 * Unpacks a zip, tar, tar.gz, gz or bz2 (containers-compressed.ts) into `dest` safely: entries with absolute paths or `..` segments,
 * links and devices are refused, entry count, entry size, total size and compression ratio are
 * capped (declared sizes checked first, real bytes counted while writing), so a bomb fails with
 * CONTAINER_TOO_LARGE and a hostile archive with CONTAINER_INVALID, both naming the container.
 * Returns every file unpacked with its size and sha256. `name` is what messages call it.
 */
export async function unpackContainer(
  archive: string,
  dest: string,
  limits: ContainerLimits,
  signal: AbortSignal,
  name = basename(archive),
): Promise<UnpackedFile[]> {
  const format = await containerFormat(archive, name);
  if (!format) throw invalid({ name }, 'not a zip, tar, tar.gz, gz or bz2 file');
  const archiveBytes = (await stat(archive)).size;
  const ctx: UnpackContext = { name, archive, dest, signal, budget: new Budget(name, limits, archiveBytes) };
  const files =
    format === 'zip'
      ? await unpackZip(ctx)
      : format === 'tar'
        ? await unpackTar(ctx)
        : await unpackCompressed(ctx, format, limits, archiveBytes);
  if (files.length === 0) throw invalid(ctx, 'it holds no files');
  return files;
}
