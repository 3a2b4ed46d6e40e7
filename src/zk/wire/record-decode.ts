/**
 * Decoding records from jute's format. Installed as the library's `Record.prototype.deserialize`.
 * Nested records are decoded into blank records (see `RecordType.blank`).
 */
import type { JuteRecord } from './library-shape.js';
import { readLong, zeroLong } from './longs.js';
import type { CompiledRecord } from './record-encode.js';
import {
  ATTRIBUTES,
  KIND_BOOLEAN,
  KIND_BUFFER,
  KIND_INT,
  KIND_LONG,
  KIND_USTRING,
  KIND_VECTOR,
  type FieldType,
} from './record-types.js';

/** Bytes read by the last {@link decodeValue} call: returning them beside the value would cost an object per attribute. */
let lastBytesRead = 0;

function decodeBuffer(buffer: Buffer, offset: number): Buffer | undefined {
  const length = buffer.readInt32BE(offset);
  if (length === -1) {
    lastBytesRead = 4;
    return undefined;
  }
  // Not from the shared pool: node data may be kept, and would keep a pool slab alive. Zeroed only
  // when the packet is short (the copy then leaves bytes unwritten), as the library did.
  const value = offset + 4 + length > buffer.length ? Buffer.alloc(length) : Buffer.allocUnsafeSlow(length);
  buffer.copy(value, 0, offset + 4, offset + 4 + length);
  lastBytesRead = 4 + length;
  return value;
}

function decodeVector(element: FieldType, buffer: Buffer, offset: number): unknown[] | undefined {
  let length = buffer.readInt32BE(offset);
  if (length === -1) {
    lastBytesRead = 4;
    return undefined;
  }
  let bytesRead = 4;
  const value: unknown[] = [];
  while (length > 0) {
    value.push(decodeValue(element, buffer, offset + bytesRead));
    bytesRead += lastBytesRead;
    length -= 1;
  }
  lastBytesRead = bytesRead;
  return value;
}

/** The value of type `type` at `offset`; its length is left in {@link lastBytesRead}. */
function decodeValue(type: FieldType, buffer: Buffer, offset: number): unknown {
  switch (type.kind) {
    case KIND_INT:
      lastBytesRead = 4;
      return buffer.readInt32BE(offset);
    case KIND_LONG: {
      // Zero-filled when the packet is short, as the library did.
      let value: Buffer;
      if (offset + 8 > buffer.length) {
        value = zeroLong();
        buffer.copy(value, 0, offset, offset + 8);
      } else {
        value = readLong(buffer, offset);
      }
      lastBytesRead = 8;
      return value;
    }
    case KIND_BUFFER:
      return decodeBuffer(buffer, offset);
    case KIND_USTRING: {
      const length = buffer.readInt32BE(offset);
      if (length === -1) {
        lastBytesRead = 4;
        return undefined;
      }
      lastBytesRead = 4 + length;
      return buffer.toString('utf8', offset + 4, offset + 4 + length);
    }
    case KIND_BOOLEAN:
      lastBytesRead = 1;
      return buffer.readUInt8(offset) === 1;
    case KIND_VECTOR:
      return decodeVector(type.element!, buffer, offset);
    default: {
      const value = type.record!.blank();
      lastBytesRead = value.deserialize(buffer, offset);
      return value;
    }
  }
}

/** `Record.prototype.deserialize`: reads the record at `offset`, returns the bytes read. */
export function recordDeserialize(this: CompiledRecord, buffer: Buffer, offset: number): number {
  if (!Buffer.isBuffer(buffer)) throw new Error('buffer must an instance of Node.js Buffer class.');
  if (offset < 0 || offset >= buffer.length) throw new Error(`offset: ${offset} is out of buffer range.`);
  const attributes = this[ATTRIBUTES];
  let bytesRead = 0;
  for (let i = 0; i < attributes.length; i += 1) {
    const attribute = attributes[i]!;
    this[attribute.name] = decodeValue(attribute, buffer, offset + bytesRead);
    bytesRead += lastBytesRead;
    if (this.chrootPath && attribute.isPath) stripChroot(this, this.chrootPath);
  }
  return bytesRead;
}

/** The server answers with full paths: one under the chroot is given back relative to it. */
function stripChroot(record: JuteRecord, chroot: string): void {
  const path = record['path'] as string;
  record['path'] = path === chroot ? '/' : path.substring(chroot.length);
}
