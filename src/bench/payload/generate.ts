import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { closeSync, createWriteStream, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { CHUNK_BYTES, DigestStream, type PayloadDigest } from './digest-stream.js';
import { formatBytes, zipEntrySizes, type PayloadName, type PayloadSizes } from './sizes.js';

/** A file of a payload as the file server serves it. */
export interface PayloadFile {
  /** Its path under the served root, `/`-separated: its URL's path. */
  path: string;
  /** Its name in the object (the manifest's `nfo:fileName`). */
  name: string;
  bytes: number;
  /** In the run's digest algorithm. */
  digest: string;
}

/** A zip entry, with the SHA-256 the limit's unpacking must find. */
export interface ZipEntryFigure {
  name: string;
  bytes: number;
  sha256: string;
}

/** How a payload is submitted: Merritt's submission types. */
export type PayloadType = 'object-manifest' | 'single-file-batch-manifest' | 'container';

/** A payload generated on disk, with what its manifests and the limit need to know. */
export interface GeneratedPayload {
  name: PayloadName;
  description: string;
  type: PayloadType;
  /** The directory under the served root holding it (its name). */
  dir: string;
  /** What a client fetches: the object's files, the batch's files, or the one zip. */
  files: PayloadFile[];
  /** The zip's entries (zip only). */
  entries?: ZipEntryFigure[];
  objects: number;
  /** Files in the objects: for the zip, its entries. */
  contentFiles: number;
  /** Bytes fetched: the files, or the zip. */
  bytes: number;
}

/**
 * Writes `bytes` random bytes (OpenSSL's generator, about 4 GB/s here, faster than the disk) to
 * `path` and returns their digest. Synchronous: generation is not measured, and a 4 KiB file
 * costs one write.
 */
function writeRandomFile(path: string, bytes: number, algorithm: PayloadDigest, chunk: Buffer): string {
  const hash = createHash(algorithm);
  const fd = openSync(path, 'w');
  try {
    for (let left = bytes; left > 0; left -= chunk.length) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      randomFillSync(part);
      hash.update(part);
      writeSync(fd, part);
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** `count` files of `bytes` each under `<root>/<dir>/<folder>/`, named `<prefix>000001.bin`. */
function randomFiles(
  root: string,
  dir: string,
  { count, bytes, folder, prefix }: { count: number; bytes: number; folder: string; prefix: string },
  algorithm: PayloadDigest,
): PayloadFile[] {
  mkdirSync(join(root, dir, folder), { recursive: true });
  const chunk = Buffer.allocUnsafe(Math.min(bytes, CHUNK_BYTES));
  const width = Math.max(6, String(count).length);
  return Array.from({ length: count }, (_, i) => {
    const name = `${folder}/${prefix}${String(i + 1).padStart(width, '0')}.bin`;
    const digest = writeRandomFile(join(root, dir, name), bytes, algorithm, chunk);
    return { path: `${dir}/${name}`, name, bytes, digest };
  });
}

/** A stream of `bytes` random bytes in chunks of CHUNK_BYTES. */
function randomStream(bytes: number): Readable {
  let left = bytes;
  return new Readable({
    highWaterMark: CHUNK_BYTES,
    read() {
      const size = Math.min(left, CHUNK_BYTES);
      left -= size;
      this.push(size > 0 ? randomBytes(size) : null);
    },
  });
}

/**
 * A zip of random entries, stored (random bytes would not compress), written by yazl: each
 * entry's stream is made only when yazl reaches it, so memory holds one chunk at a time.
 */
async function randomZip(root: string, dir: string, sizes: PayloadSizes, algorithm: PayloadDigest) {
  mkdirSync(join(root, dir), { recursive: true });
  const zip = new yazl.ZipFile();
  const entries: { name: string; bytes: number; stream: DigestStream }[] = [];
  const sizesOfEntries = zipEntrySizes(sizes);
  const large = sizesOfEntries.length - sizes.zipSmallEntries;
  sizesOfEntries.forEach((bytes, i) => {
    const name = `${i < large ? 'large' : 'small'}/entry-${String(i + 1).padStart(4, '0')}.bin`;
    const stream = new DigestStream('sha256');
    entries.push({ name, bytes, stream });
    zip.addReadStreamLazy(name, { compress: false, size: bytes }, (give) =>
      give(null, randomStream(bytes).pipe(stream)),
    );
  });
  zip.end();
  const whole = new DigestStream(algorithm);
  const path = `${dir}/container.zip`;
  await pipeline(
    zip.outputStream,
    whole,
    createWriteStream(join(root, path), { highWaterMark: CHUNK_BYTES }),
  );
  const { size } = statSync(join(root, path));
  return {
    file: { path, name: 'container.zip', bytes: size, digest: whole.digest() },
    entries: entries.map((e) => ({ name: e.name, bytes: e.bytes, sha256: e.stream.digest() })),
  };
}

/** A payload of one object holding `files`. */
function objectOf(name: PayloadName, files: PayloadFile[], description: string): GeneratedPayload {
  const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  return {
    name,
    description,
    type: 'object-manifest',
    dir: name,
    files,
    objects: 1,
    contentFiles: files.length,
    bytes,
  };
}

/** Generates one payload under `<root>/<name>/` (random content, digests in `algorithm`). */
export async function generatePayload(
  root: string,
  name: PayloadName,
  sizes: PayloadSizes,
  algorithm: PayloadDigest,
): Promise<GeneratedPayload> {
  const files = (count: number, bytes: number, prefix = 'f') =>
    randomFiles(root, name, { count, bytes, folder: 'files', prefix }, algorithm);
  const many = (count: number, bytes: number) => `${count} files of ${formatBytes(bytes)}`;
  switch (name) {
    case 'big-file':
      return objectOf(name, files(1, sizes.bigBytes), `1 file of ${formatBytes(sizes.bigBytes)}`);
    case 'medium-files':
      return objectOf(
        name,
        files(sizes.mediumCount, sizes.mediumBytes),
        many(sizes.mediumCount, sizes.mediumBytes),
      );
    case 'small-files':
      return objectOf(
        name,
        files(sizes.smallCount, sizes.smallBytes),
        many(sizes.smallCount, sizes.smallBytes),
      );
    case 'one-file-objects': {
      const made = files(sizes.objectCount, sizes.objectBytes, 'o');
      const description = `${sizes.objectCount} objects of 1 file of ${formatBytes(sizes.objectBytes)}`;
      return {
        ...objectOf(name, made, description),
        type: 'single-file-batch-manifest',
        objects: made.length,
      };
    }
    case 'zip': {
      const { file, entries } = await randomZip(root, name, sizes, algorithm);
      const description = `zip of ${formatBytes(file.bytes)}, ${entries.length} entries`;
      return {
        ...objectOf(name, [file], description),
        type: 'container',
        entries,
        contentFiles: entries.length,
      };
    }
  }
}
