import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { link, mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkSafeId } from '../../queue/tree/safe-id.js';
import { HttpProblem } from '../errors.js';

/**
 * An upload's place in the upload directory. The name carries a digest of the bytes
 * (`<uuid>.<32 hex>.checkm` for a manifest in the body, `<uuid>.<32 hex>-<name>` for a streamed
 * upload), so a second upload under the same uuid either names the very same bytes or a file of
 * its own: nothing a later request writes can change a stored payload.
 */
export interface UploadFile {
  path: string;
  /**
   * Writes the file unless it is already there: to a temporary name first, then linked to its
   * own name, which fails rather than replaces. The temporary name is removed either way.
   */
  store(): Promise<void>;
  /** Removes the file, when {@link UploadFile.store} created it; otherwise does nothing. */
  discard(): Promise<void>;
}

/** 128 bits of SHA-256: `<uuid>.<digest>.checkm` stays within 255 bytes for a 200-character uuid. */
const DIGEST_HEX = 32;

/** Links `from` as `to`; false when `to` exists (another upload of the same bytes stored it). */
async function linkUnlessThere(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** The file an upload of `text` under `uuid` is stored as in `dir` (checks the uuid first). */
export function uploadFile(dir: string, uuid: string, text: string): UploadFile {
  checkSafeId('uuid', uuid);
  const digest = createHash('sha256').update(text).digest('hex').slice(0, DIGEST_HEX);
  const path = join(dir, `${uuid}.${digest}.checkm`);
  let created = false;
  return {
    path,
    async store() {
      await mkdir(dir, { recursive: true });
      const temporary = join(dir, `.${uuid}.${randomBytes(8).toString('hex')}.tmp`);
      try {
        await writeFile(temporary, text, { flag: 'wx' });
        created = await linkUnlessThere(temporary, path);
      } finally {
        await rm(temporary, { force: true });
      }
    },
    async discard() {
      if (created) await rm(path, { force: true });
      created = false;
    },
  };
}

/** An upload streamed to a temporary file of the upload directory, not yet stored under its name. */
export interface StagedUpload {
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
  /** The first `bytes` of the upload. */
  head(bytes: number): Promise<Buffer>;
  /**
   * The upload as it is stored for batch `uuid`: `<uuid>.<32 hex of its SHA-256>-<name>`, the
   * file's own name kept at the end (made safe) so its extension still says what it is. Storing
   * links the temporary file there, never over another file (the same name is the same bytes).
   */
  storedAs(uuid: string, name: string): UploadFile;
  /** Removes the temporary file (the stored file, when there is one, stays). */
  release(): Promise<void>;
}

/** Longest tail of a file name kept in a stored upload's name (within 255 bytes with a 200-character uuid). */
const NAME_TAIL = 20;

/** `name`'s last path segment with anything but letters, digits, `.`, `_`, `-` made `_`, its end kept. */
function safeTail(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const safe = base.replace(/[^A-Za-z0-9._-]/g, '_').slice(-NAME_TAIL);
  return safe.replace(/^\.+/, '') || 'upload';
}

/** Counts and hashes what passes; past `maxBytes` it passes nothing more, and says so. */
class Meter extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    // Past the limit the rest is read and dropped, so the client can finish sending and read the answer.
    if (this.bytes > this.maxBytes) return done();
    this.hash.update(chunk);
    done(null, chunk);
  }
  get tooLarge(): boolean {
    return this.bytes > this.maxBytes;
  }
}

/**
 * Streams `source` into a temporary file of `dir` while hashing it, so an upload of any size
 * costs a few buffers of memory, never its size. More than `maxBytes` is refused (413) once the
 * source has ended, and nothing of it is kept.
 */
export async function stageUpload(dir: string, source: Readable, maxBytes: number): Promise<StagedUpload> {
  await mkdir(dir, { recursive: true });
  const temporary = join(dir, `.upload.${randomBytes(12).toString('hex')}.tmp`);
  const meter = new Meter(maxBytes);
  try {
    await pipeline(source, meter, createWriteStream(temporary, { flags: 'wx' }));
    if (meter.tooLarge)
      throw new HttpProblem(
        413,
        'UPLOAD_TOO_LARGE',
        `the upload is larger than this server takes (${maxBytes} bytes, MRTQ_UPLOAD_MAX_BYTES)`,
      );
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  const sha256 = meter.hash.digest('hex');
  return {
    size: meter.bytes,
    sha256,
    async head(bytes) {
      const file = await open(temporary, 'r');
      try {
        const buffer = Buffer.alloc(Math.min(bytes, meter.bytes));
        const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await file.close();
      }
    },
    storedAs(uuid, name) {
      checkSafeId('uuid', uuid);
      const path = join(dir, `${uuid}.${sha256.slice(0, DIGEST_HEX)}-${safeTail(name)}`);
      let created = false;
      return {
        path,
        async store() {
          created = await linkUnlessThere(temporary, path);
        },
        async discard() {
          if (created) await rm(path, { force: true });
          created = false;
        },
      };
    },
    release: () => rm(temporary, { force: true }),
  };
}
