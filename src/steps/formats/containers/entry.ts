import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Digest } from '../../ingest-contracts.js';
import type { ContainerLimits } from '../../../config/ingest-settings.js';
import { ContainerError, isIntakeError } from '../../intake-errors.js';
import { joinInside, safeRelativePath } from '../../workdir/safe-path.js';

/** One file unpacked from a container. */
export interface UnpackedFile {
  /** Relative to the directory unpacked into, `a/b.txt`. */
  path: string;
  size: number;
  /** sha256 of the unpacked bytes. */
  digest: Digest;
}

/**
 * Below this many bytes an entry is never a bomb: small, very regular files (blank masks,
 * padding) legitimately compress far beyond any sensible ratio cap.
 */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/** What unpacking one container works with. */
export interface UnpackContext {
  /** The container's name, for messages. */
  name: string;
  archive: string;
  dest: string;
  signal: AbortSignal;
  budget: Budget;
}

/** Counts entries and bytes against the container limits while a container is unpacked. */
export class Budget {
  private entries = 0;
  private total = 0;

  constructor(
    private readonly name: string,
    private readonly limits: ContainerLimits,
    /** Size of the archive file: the whole-container compression ratio is measured against it. */
    private readonly archiveBytes: number,
  ) {}

  private refuse(what: string): ContainerError {
    return new ContainerError('CONTAINER_TOO_LARGE', `container ${this.name}: ${what}`);
  }

  /** One more entry. */
  entry(): void {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries)
      throw this.refuse(`more than ${this.limits.maxEntries} entries`);
  }

  /** Checks an entry's declared sizes before reading it (zip knows both, tar only the size). */
  declared(path: string, size: number, compressed?: number): void {
    if (size > this.limits.maxEntryBytes) {
      throw this.refuse(`entry "${path}" is ${size} bytes, the limit is ${this.limits.maxEntryBytes}`);
    }
    if (this.total + size > this.limits.maxTotalBytes) {
      throw this.refuse(`unpacked content exceeds the limit of ${this.limits.maxTotalBytes} bytes`);
    }
    if (compressed !== undefined) this.ratio(path, size, compressed);
  }

  /** Bytes really unpacked (declared sizes can lie): `entryBytes` so far of this entry, `chunk` new. */
  add(path: string, entryBytes: number, chunk: number, compressed?: number): void {
    this.total += chunk;
    this.declared(path, entryBytes, compressed);
    if (this.total > this.limits.maxTotalBytes) {
      throw this.refuse(`unpacked content exceeds the limit of ${this.limits.maxTotalBytes} bytes`);
    }
    this.ratio('(whole container)', this.total, this.archiveBytes);
  }

  private ratio(path: string, size: number, compressed: number): void {
    if (size <= RATIO_FLOOR_BYTES) return;
    const ratio = compressed > 0 ? size / compressed : Infinity;
    if (ratio > this.limits.maxRatio) {
      const shown = Number.isFinite(ratio) ? ratio.toFixed(0) : 'unbounded';
      throw this.refuse(
        `entry "${path}" expands ${shown} times, above the limit of ${this.limits.maxRatio} (a decompression bomb?)`,
      );
    }
  }
}

/** CONTAINER_INVALID naming the container. */
export function invalid(ctx: Pick<UnpackContext, 'name'>, what: string, cause?: unknown): ContainerError {
  return new ContainerError('CONTAINER_INVALID', `container ${ctx.name}: ${what}`, { cause });
}

/** The safe relative path of an entry, or CONTAINER_INVALID naming the container and the entry. */
export function entryPath(ctx: Pick<UnpackContext, 'name'>, name: string): string {
  try {
    return safeRelativePath(name, 'entry');
  } catch (err) {
    throw invalid(ctx, (err as Error).message, err);
  }
}

/**
 * Writes one entry's bytes to `<dest>/<path>`, hashing and counting them against the budget as
 * they stream. The file is created exclusively: an entry named twice is refused, not merged.
 */
export async function writeEntry(
  ctx: UnpackContext,
  path: string,
  source: AsyncIterable<Buffer>,
  compressed?: number,
): Promise<UnpackedFile> {
  const target = joinInside(ctx.dest, path);
  await mkdir(dirname(target), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        size += chunk.length;
        ctx.budget.add(path, size, chunk.length, compressed);
        hash.update(chunk);
        callback(null, chunk);
      } catch (err) {
        callback(err as Error);
      }
    },
  });
  try {
    await pipeline(Readable.from(source), meter, createWriteStream(target, { flags: 'wx' }), {
      signal: ctx.signal,
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'EEXIST') throw invalid(ctx, `entry "${path}" appears twice`);
    // Our own disk's failures (they carry a syscall) are not the container's fault.
    ctx.signal.throwIfAborted();
    if (isIntakeError(err) || (err as { syscall?: string }).syscall) throw err;
    throw invalid(ctx, `entry "${path}" cannot be read: ${(err as Error).message}`, err);
  }
  return { path, size, digest: { algorithm: 'sha256', value: hash.digest('hex') } };
}
