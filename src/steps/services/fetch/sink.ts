import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Digest, DigestAlgorithm } from '../../ingest-contracts.js';
import { createDigester, type Digester, digestOf, formatDigest, sameDigest } from '../../formats/digest.js';
import { FetchError } from '../../intake-errors.js';

/** What a fetched file is checked against. */
export interface Expected {
  size?: number;
  digest?: Digest;
}

/**
 * Bytes of a file written so far and their running hash. Both only ever cover bytes that are
 * on disk, so an interrupted download can resume from `written` with a Range request.
 */
export class FileProgress {
  written = 0;
  hash: Digester;

  constructor(readonly algorithm: DigestAlgorithm) {
    this.hash = createDigester(algorithm);
  }

  /** Starts over (the server sent the whole file again, or the range did not fit). */
  reset(): void {
    this.written = 0;
    this.hash = createDigester(this.algorithm);
  }
}

/** FETCH_TOO_LARGE naming the URL, its size when known, and the limit. */
export function tooLarge(url: string, maxBytes: number, size?: number): FetchError {
  const got = size === undefined ? 'it is larger' : `it is ${size} bytes`;
  return new FetchError('FETCH_TOO_LARGE', url, `${url}: too large: ${got}, the limit is ${maxBytes} bytes`);
}

/** SIZE_MISMATCH naming the URL, the expected and the actual size. */
export function sizeMismatch(url: string, expected: number, actual: string | number): FetchError {
  return new FetchError(
    'SIZE_MISMATCH',
    url,
    `${url}: size mismatch: expected ${expected} bytes, got ${actual}`,
  );
}

/** Refuses a file early from the size the server or file system announces. */
export function checkAnnounced(
  url: string,
  size: number | undefined,
  maxBytes: number,
  expected?: number,
): void {
  if (size === undefined) return;
  if (size > maxBytes) throw tooLarge(url, maxBytes, size);
  if (expected !== undefined && size !== expected) throw sizeMismatch(url, expected, `${size} announced`);
}

async function writeAll(fh: FileHandle, chunk: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < chunk.length) {
    const { bytesWritten } = await fh.write(chunk, done, chunk.length - done, position + done);
    done += bytesWritten;
  }
}

/** Byte limits a download is held to while it streams. */
export interface SinkLimits {
  maxBytes: number;
  expectedSize?: number;
}

/**
 * A stream sink writing to `fh` at the progress offset, hashing what it wrote, and refusing
 * data beyond `maxBytes` or the expected size while it streams (never buffering the file).
 * `idle()` resolves once no write is in flight, so progress is final after a failure.
 */
function sinkTo(url: string, fh: FileHandle, progress: FileProgress, limits: SinkLimits) {
  let inFlight: Promise<void> = Promise.resolve();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const next = progress.written + chunk.length;
      if (next > limits.maxBytes) return callback(tooLarge(url, limits.maxBytes));
      if (limits.expectedSize !== undefined && next > limits.expectedSize) {
        return callback(sizeMismatch(url, limits.expectedSize, 'more'));
      }
      inFlight = writeAll(fh, chunk, progress.written).then(() => {
        progress.hash.update(chunk);
        progress.written = next;
      });
      inFlight.then(() => callback(), callback);
    },
  });
  return { stream, idle: () => inFlight.catch(() => undefined) };
}

/**
 * Streams `source` into `fh` after the bytes already in `progress`. When it fails, it waits
 * for the write in flight, so a resumed attempt starts exactly where the file on disk ends.
 */
export async function pump(
  source: NodeJS.ReadableStream,
  target: { url: string; fh: FileHandle; progress: FileProgress; limits: SinkLimits },
  signal: AbortSignal,
): Promise<void> {
  const sink = sinkTo(target.url, target.fh, target.progress, target.limits);
  try {
    await pipeline(source, sink.stream, { signal });
  } catch (err) {
    await sink.idle();
    throw err;
  }
}

/** The size and digest of a completed file, or the mismatch against what the depositor said. */
export function verify(
  url: string,
  progress: FileProgress,
  expected: Expected,
): { size: number; digest: Digest } {
  if (expected.size !== undefined && progress.written !== expected.size) {
    throw sizeMismatch(url, expected.size, progress.written);
  }
  const digest = digestOf(progress.algorithm, progress.hash);
  if (expected.digest && !sameDigest(expected.digest, digest)) {
    throw new FetchError(
      'DIGEST_MISMATCH',
      url,
      `${url}: digest mismatch: expected ${formatDigest(expected.digest)}, got ${formatDigest(digest)}`,
    );
  }
  return { size: progress.written, digest };
}
