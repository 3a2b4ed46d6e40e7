import {
  closeSync,
  fdatasync,
  fstatSync,
  fsync,
  ftruncateSync,
  readFileSync,
  readSync,
  write as writeCallback,
  writev as writevCallback,
  writeFileSync,
  writeSync,
  writevSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { promisify } from 'node:util';

/**
 * Once a file has taken this many bytes, its writes go through the thread pool: a big download
 * keeps hashing the next chunk while the last one is written, as with a FileHandle.
 */
export const INLINE_WRITE_BYTES = 1024 * 1024;

const fsyncAsync = promisify(fsync);
const fdatasyncAsync = promisify(fdatasync);
const writeAsync = promisify(writeCallback);
const writevAsync = promisify(writevCallback);

/**
 * `fn()` run now, in the caller, its result as a promise and its exception as a rejection (an
 * async function runs up to its first await synchronously).
 */
// eslint-disable-next-line @typescript-eslint/require-await
export async function settle<T>(fn: () => T): Promise<T> {
  return fn();
}

/**
 * A FileHandle whose reads, writes, stat, truncate and close are synchronous calls (each a few
 * microseconds on a local disk, where a thread-pool round trip costs a wake-up of a pool thread
 * and of the loop, and on a busy machine a wait for a core). `sync` and `datasync` wait for the
 * disk and go through the thread pool; so do the writes of a file past INLINE_WRITE_BYTES.
 */
export class InlineFileHandle {
  private written = 0;

  constructor(public fd: number) {}

  writeFile(data: string | Uint8Array): Promise<void> {
    return settle(() => {
      writeFileSync(this.fd, data);
      this.written += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    });
  }

  write<T extends NodeJS.ArrayBufferView>(
    buffer: T,
    offset?: number | null,
    length?: number | null,
    position?: number | null,
  ): Promise<{ bytesWritten: number; buffer: T }> {
    const from = offset ?? 0;
    const count = length ?? buffer.byteLength - from;
    if (this.written >= INLINE_WRITE_BYTES) return writeAsync(this.fd, buffer, from, count, position);
    return settle(() => {
      const bytesWritten = writeSync(this.fd, buffer, from, count, position);
      this.written += bytesWritten;
      return { bytesWritten, buffer };
    });
  }

  writev(buffers: readonly NodeJS.ArrayBufferView[], position?: number): Promise<{ bytesWritten: number }> {
    if (this.written >= INLINE_WRITE_BYTES) return writevAsync(this.fd, buffers, position);
    return settle(() => {
      const bytesWritten = writevSync(this.fd, buffers, position);
      this.written += bytesWritten;
      return { bytesWritten };
    });
  }

  read<T extends NodeJS.ArrayBufferView>(
    buffer: T,
    offset?: number | null,
    length?: number | null,
    position?: number | null,
  ): Promise<{ bytesRead: number; buffer: T }> {
    return settle(() => {
      const from = offset ?? 0;
      const bytesRead = readSync(this.fd, buffer, from, length ?? buffer.byteLength - from, position ?? null);
      return { bytesRead, buffer };
    });
  }

  readFile(): Promise<Buffer> {
    return settle(() => readFileSync(this.fd));
  }

  stat(): Promise<Stats> {
    return settle(() => fstatSync(this.fd));
  }

  truncate(length?: number): Promise<void> {
    return settle(() => ftruncateSync(this.fd, length));
  }

  sync(): Promise<void> {
    return fsyncAsync(this.fd);
  }

  datasync(): Promise<void> {
    return fdatasyncAsync(this.fd);
  }

  close(): Promise<void> {
    return settle(() => {
      if (this.fd < 0) return;
      const fd = this.fd;
      this.fd = -1;
      closeSync(fd);
    });
  }
}

/**
 * What the steps use of an open file: the methods InlineFileHandle serves, which a
 * `node:fs/promises` FileHandle has too (the thread pool's, off a local disk).
 */
export type FileHandle = Pick<
  InlineFileHandle,
  | 'fd'
  | 'writeFile'
  | 'write'
  | 'writev'
  | 'read'
  | 'readFile'
  | 'stat'
  | 'truncate'
  | 'sync'
  | 'datasync'
  | 'close'
>;
