import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import bz2 from 'unbzip2-stream';
import { Budget, writeEntry, type UnpackContext, type UnpackedFile } from './entry.js';
import { unpackTar } from './tar.js';
import type { ContainerLimits } from '../../../config/ingest-settings.js';

/** A single compressed stream: gzip (`.gz`) or bzip2 (`.bz2`). */
export type CompressedFormat = 'gzip' | 'bzip2';

/**
 * The name of what a compressed file holds, as mrt-ingest's `getOutputName` makes it: `.gz` and
 * `.bz2` dropped, `.tgz` becoming `.tar`, `tarz` losing its `z`; a name with none of these is kept.
 */
export function decompressedName(name: string): string {
  if (name.endsWith('.gz')) return name.slice(0, -'.gz'.length);
  if (name.endsWith('.tgz')) return `${name.slice(0, -'.tgz'.length)}.tar`;
  if (name.endsWith('tarz')) return name.slice(0, -'z'.length);
  if (name.endsWith('.bz2')) return name.slice(0, -'.bz2'.length);
  return name;
}

/**
 * The decompressed bytes of `archive` as a stream; any failure (of the file or of the data)
 * ends it with that error. unbzip2-stream is an old-style stream, so its output is handed on
 * through a PassThrough, which can be read as an async iterable. The reader meets a failure
 * through the stream's errored state whenever it starts reading: the PassThrough listens to its
 * own errors, or a failure before the first read (the reader still making its directory) would
 * be thrown by the old-style pipe as an uncaught exception and end the process.
 */
export function decompressedStream(archive: string, format: CompressedFormat): Readable {
  const source = createReadStream(archive);
  const unpacker = format === 'gzip' ? createGunzip() : bz2();
  const out = new PassThrough();
  out.on('error', () => undefined);
  out.on('close', () => {
    source.destroy();
    unpacker.destroy();
  });
  const fail = (err: Error): void => {
    out.destroy(err);
  };
  source.on('error', fail);
  unpacker.on('error', fail);
  source.pipe(unpacker).pipe(out);
  return out;
}

/** Whether a file is a POSIX tar (`ustar` at 257), or named as one. */
async function isTar(path: string, name: string): Promise<boolean> {
  if (name.endsWith('.tar')) return true;
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(262);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    return bytesRead >= 262 && head.toString('latin1', 257, 262) === 'ustar';
  } finally {
    await fh.close();
  }
}

/**
 * Unpacks a `.gz` or `.bz2` as mrt-ingest's `HandlerDisaggregate` does: the stream is
 * decompressed (counted against the container's limits, so a bomb stops early); a tar inside
 * is unpacked into `dest`, anything else becomes the object's one file under its decompressed
 * name. The decompressed copy lives beside `dest` until then, never inside it.
 */
export async function unpackCompressed(
  ctx: UnpackContext,
  format: CompressedFormat,
  limits: ContainerLimits,
  archiveBytes: number,
): Promise<UnpackedFile[]> {
  const scratch = join(dirname(ctx.dest), `.decompress-${randomBytes(6).toString('hex')}`);
  await mkdir(scratch, { recursive: true });
  try {
    const inner = decompressedName(ctx.name.split('/').pop() ?? ctx.name) || 'content';
    const stream = decompressedStream(ctx.archive, format);
    const file = await writeEntry({ ...ctx, dest: scratch }, inner, stream);
    const decompressed = join(scratch, inner);
    if (await isTar(decompressed, inner)) {
      const budget = new Budget(ctx.name, limits, archiveBytes);
      return await unpackTar({ ...ctx, archive: decompressed, budget });
    }
    await mkdir(ctx.dest, { recursive: true });
    await rename(decompressed, join(ctx.dest, inner));
    return [file];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
