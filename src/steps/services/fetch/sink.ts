import type { FileHandle } from '../../fs/calls.js';
import type { Digest, DigestAlgorithm } from '../../ingest-contracts.js';
import {
  createDigester,
  DEFAULT_ALGORITHM,
  type Digester,
  digestOf,
  formatDigest,
  sameDigest,
} from '../../formats/digest.js';
import { FetchError } from '../../intake-errors.js';
import { MIME_SNIFF_BYTES } from '../handoff/mime.js';

/** What a fetched file is checked against. */
export interface Expected {
  size?: number;
  digest?: Digest;
}

/**
 * Bytes of a file written so far and their running hash. Both only ever cover bytes that are
 * on disk, so an interrupted download can resume from `written` with a Range request. The same
 * pass also gives what storage needs later, so no step reads the file again: its sha256 when the
 * depositor's digest is of another algorithm, and its first bytes (for its MIME type).
 */
export class FileProgress {
  written = 0;
  /** Whether any write was issued to the file (it may hold bytes even after a reset). */
  touched = false;
  hash: Digester;
  /** The sha256 alongside `hash` when `algorithm` is another one. */
  sha256?: Digester;
  private headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(readonly algorithm: DigestAlgorithm) {
    this.hash = createDigester(algorithm);
    if (algorithm !== DEFAULT_ALGORITHM) this.sha256 = createDigester(DEFAULT_ALGORITHM);
  }

  /**
   * Hashes bytes being written (while their write is in flight, so hashing and writing overlap);
   * `written` moves once they are on disk. A write that fails resets the progress, so the hash
   * never covers bytes the file does not hold when a download resumes.
   */
  take(chunk: Buffer): void {
    this.hash.update(chunk);
    this.sha256?.update(chunk);
    if (this.headLength < MIME_SNIFF_BYTES) {
      const part = chunk.subarray(0, MIME_SNIFF_BYTES - this.headLength);
      // A copy: the chunk's memory may be a slice of a larger pooled buffer.
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
  }

  /** The file's first bytes (up to MIME_SNIFF_BYTES). */
  head(): Buffer {
    return Buffer.concat(this.headChunks, this.headLength);
  }

  /** Starts over (the server sent the whole file again, or the range did not fit). */
  reset(): void {
    this.written = 0;
    this.hash = createDigester(this.algorithm);
    if (this.sha256) this.sha256 = createDigester(DEFAULT_ALGORITHM);
    this.headChunks = [];
    this.headLength = 0;
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

/** Writes `chunks` at `position`, all of them, in one writev (a short write is continued). */
async function writeAll(fh: FileHandle, chunks: Buffer[], position: number): Promise<void> {
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  let done = (await fh.writev(chunks, position)).bytesWritten;
  if (done === length) return;
  const whole = Buffer.concat(chunks);
  while (done < whole.length) {
    const { bytesWritten } = await fh.write(whole, done, whole.length - done, position + done);
    done += bytesWritten;
  }
}

/** Byte limits a download is held to while it streams. */
export interface SinkLimits {
  maxBytes: number;
  expectedSize?: number;
  /** Push written bytes to disk while it streams (FLUSH_BEHIND_BYTES); default true. */
  flushBehind?: boolean;
}

/**
 * How often a download's written bytes are pushed to disk while it goes on (one `fdatasync` at a
 * time, not awaited by the writes): the disk writes them while the network and the hash work, so
 * storage's fsync of a big file finds little left to do (1 GiB here: 3.0 s written then synced,
 * 1.8 s flushed behind).
 */
export const FLUSH_BEHIND_BYTES = 32 * 1024 * 1024;

/**
 * Flush-behind: `wrote(bytes)` after each write; every FLUSH_BEHIND_BYTES it starts `flush` (one
 * at a time, not awaited by the writes; a failed one only loses its head start: storage syncs
 * again before anything counts as stored). `settled()` waits for the one in flight.
 */
export function flushBehind(flush: () => Promise<unknown>) {
  let pending = 0;
  let flushing: Promise<unknown> | undefined;
  return {
    wrote(bytes: number): void {
      pending += bytes;
      if (flushing || pending < FLUSH_BEHIND_BYTES) return;
      pending = 0;
      flushing = flush()
        .catch(() => undefined)
        .finally(() => (flushing = undefined));
    },
    async settled(): Promise<void> {
      await flushing;
    },
  };
}

/** The most a download buffers while a write is in flight (then written at once). */
const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Writes a download's chunks to `fh` at the progress offset, one write in flight: chunks that
 * arrive meanwhile are queued and written together (writev, up to WRITE_BATCH_BYTES, then the
 * reader waits), so a socket's 64 KiB reads become fewer thread-pool round trips. Each chunk is
 * hashed while its write is in flight; data beyond `maxBytes` or the expected size is refused
 * before it is written (never buffering the file). A failed write resets the progress.
 */
function chunkWriter(url: string, fh: FileHandle, progress: FileProgress, limits: SinkLimits) {
  const behind = limits.flushBehind === false ? undefined : flushBehind(() => fh.datasync());
  let queued: Buffer[] = [];
  let queuedBytes = 0;
  let inFlight: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;

  const writeQueued = (): void => {
    const chunks = queued;
    const length = queuedBytes;
    queued = [];
    queuedBytes = 0;
    const next = progress.written + length;
    if (next > limits.maxBytes) throw tooLarge(url, limits.maxBytes);
    if (limits.expectedSize !== undefined && next > limits.expectedSize) {
      throw sizeMismatch(url, limits.expectedSize, 'more');
    }
    progress.touched = true;
    const writing = writeAll(fh, chunks, progress.written);
    for (const chunk of chunks) progress.take(chunk);
    inFlight = writing.then(
      () => {
        progress.written = next;
        behind?.wrote(length);
        inFlight = undefined;
        if (queued.length > 0 && !failure) writeNext();
      },
      (error: unknown) => {
        progress.reset();
        failure ??= { error };
        inFlight = undefined;
      },
    );
  };
  const writeNext = (): void => {
    try {
      writeQueued();
    } catch (error) {
      failure ??= { error };
    }
  };
  const settle = async (): Promise<void> => {
    while (inFlight) await inFlight;
  };
  const check = (): void => {
    if (failure) throw failure.error;
  };
  return {
    /** Takes a chunk; waits only when WRITE_BATCH_BYTES are queued behind the write in flight. */
    async add(chunk: Buffer): Promise<void> {
      check();
      queued.push(chunk);
      queuedBytes += chunk.length;
      if (!inFlight) return writeQueued();
      // Each write's end starts the next with what queued meanwhile: settled, all is written.
      if (queuedBytes < WRITE_BATCH_BYTES) return;
      await settle();
      check();
    },
    /** Waits until what is queued is written, and for a flush in flight. */
    async end(): Promise<void> {
      await settle();
      check();
      await behind?.settled();
    },
    /** Resolves once no write or flush is in flight (progress is then final; the file may be closed). */
    async idle(): Promise<void> {
      await settle();
      await behind?.settled();
    },
  };
}

/**
 * Streams `source` into `fh` after the bytes already in `progress`. When it fails, it waits
 * for the write in flight, so a resumed attempt starts exactly where the file on disk ends. A
 * plain loop rather than `stream.pipeline` into a Writable: per file, that machinery (an
 * AbortController aborted at every finish, with a DOMException and its stack; end-of-stream
 * listeners) was about 5 % of the event loop's time downloading 2,000 files of 64 KiB (a CPU
 * profile of the fetcher alone). The source is destroyed when the loop stops
 * early (the loop's return); an aborted `signal` stops it at the next chunk (an HTTP body and a
 * file stream are given the signal too, so a stalled one ends at once).
 */
export async function pump(
  source: AsyncIterable<unknown>,
  target: { url: string; fh: FileHandle; progress: FileProgress; limits: SinkLimits },
  signal: AbortSignal,
): Promise<void> {
  const writer = chunkWriter(target.url, target.fh, target.progress, target.limits);
  try {
    for await (const chunk of source) {
      signal.throwIfAborted();
      await writer.add(chunk as Buffer);
    }
    signal.throwIfAborted();
    await writer.end();
  } catch (err) {
    await writer.idle();
    throw err;
  }
}

/** What a completed download is: verified, with what later steps need of it (no second read). */
export interface Verified {
  size: number;
  digest: Digest;
  /** Its sha256, hex (the digest's value when that is a sha256). */
  sha256: string;
  /** Its first bytes, up to MIME_SNIFF_BYTES (for its MIME type). */
  head: Buffer;
}

/** The size and digest of a completed file, or the mismatch against what the depositor said. */
export function verify(url: string, progress: FileProgress, expected: Expected): Verified {
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
  const sha256 = progress.sha256 ? progress.sha256.digest() : digest.value;
  return { size: progress.written, digest, sha256, head: progress.head() };
}
