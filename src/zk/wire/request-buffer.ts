/**
 * A request as it goes on the socket: its length, then header and payload. Installed as the
 * library's `Request.prototype.toBuffer`, which zero-filled the buffer before writing every byte
 * of it, and had each record measure itself a second time while writing.
 */
import type { WireRequest } from './library-shape.js';

/** `Request.prototype.toBuffer`. */
export function requestToBuffer(this: WireRequest): Buffer {
  let size = 0;
  if (this.header) size += this.header.byteLength();
  if (this.payload) size += this.payload.byteLength();

  // Not zero-filled: every byte is written below, and a request whose records write fewer bytes
  // than they measured (which would send the rest of the buffer's old memory) is refused.
  const buffer = Buffer.allocUnsafe(size + 4);
  buffer.writeInt32BE(size, 0);
  let offset = 4;
  if (this.header) offset += this.header.serialize(buffer, offset);
  if (this.payload) offset += this.payload.serialize(buffer, offset);
  if (offset !== size + 4) {
    throw new Error(`request serialized to ${offset} bytes, measured ${size + 4}.`);
  }
  return buffer;
}
