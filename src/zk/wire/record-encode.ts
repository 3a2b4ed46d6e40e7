/**
 * Encoding records in jute's format: sizes first (`byteLength`), then the bytes (`serialize`)
 * into a buffer the caller sized. Installed as the library's `Record.prototype.byteLength` and
 * `serialize`.
 */
import type { JuteRecord } from './library-shape.js';
import {
  ATTRIBUTES,
  KIND_BOOLEAN,
  KIND_BUFFER,
  KIND_INT,
  KIND_LONG,
  KIND_USTRING,
  KIND_VECTOR,
  type Attribute,
  type FieldType,
} from './record-types.js';

/** A record as the codec sees it: its compiled attributes come with its prototype. */
export type CompiledRecord = JuteRecord & { readonly [ATTRIBUTES]: readonly Attribute[] };

function byteLengthOf(type: FieldType, value: unknown): number {
  switch (type.kind) {
    case KIND_INT:
      return 4;
    case KIND_LONG:
      return 8;
    case KIND_BUFFER:
      return Buffer.isBuffer(value) ? 4 + value.length : 4;
    case KIND_USTRING:
      return typeof value === 'string' ? 4 + Buffer.byteLength(value) : 4;
    case KIND_BOOLEAN:
      return 1;
    case KIND_VECTOR: {
      let size = 4;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i += 1) size += byteLengthOf(type.element!, value[i]);
      }
      return size;
    }
    default:
      return (value as JuteRecord).byteLength();
  }
}

const NOT_ENOUGH_SPACE = 'buffer does not have enough space.';

/**
 * Writes `value` at `offset` and returns the bytes written. Every write is bounds-checked (Buffer
 * throws past its end, and a string or buffer that does not fit throws here), so a record is not
 * measured a second time before it is written.
 */
function serializeValue(type: FieldType, value: unknown, buffer: Buffer, offset: number): number {
  switch (type.kind) {
    case KIND_INT:
      buffer.writeInt32BE(value as number, offset);
      return 4;
    case KIND_LONG:
      (value as Buffer).copy(buffer, offset);
      return 8;
    case KIND_BUFFER:
      if (Buffer.isBuffer(value)) {
        if (offset + 4 + value.length > buffer.length) throw new Error(NOT_ENOUGH_SPACE);
        buffer.writeInt32BE(value.length, offset);
        value.copy(buffer, offset + 4);
        return 4 + value.length;
      }
      buffer.writeInt32BE(-1, offset);
      return 4;
    case KIND_USTRING:
      if (typeof value === 'string') {
        const length = buffer.write(value, offset + 4, 'utf8');
        if (length !== Buffer.byteLength(value)) throw new Error(NOT_ENOUGH_SPACE);
        buffer.writeInt32BE(length, offset);
        return 4 + length;
      }
      buffer.writeInt32BE(-1, offset);
      return 4;
    case KIND_BOOLEAN:
      buffer.writeUInt8(value ? 1 : 0, offset);
      return 1;
    case KIND_VECTOR:
      if (Array.isArray(value)) {
        buffer.writeInt32BE(value.length, offset);
        let written = 4;
        for (let i = 0; i < value.length; i += 1) {
          written += serializeValue(type.element!, value[i], buffer, offset + written);
        }
        return written;
      }
      buffer.writeInt32BE(-1, offset);
      return 4;
    default:
      return (value as JuteRecord).serialize(buffer, offset);
  }
}

function prependChroot(record: JuteRecord, path: unknown): unknown {
  if (!record.chrootPath) return path;
  if (path === '/') return record.chrootPath;
  return record.chrootPath + (path as string);
}

/** An attribute's value as it goes on the wire: paths with the chroot in front. */
function wireValue(record: JuteRecord, attribute: Attribute): unknown {
  const value = record[attribute.name];
  if (attribute.isPath) return prependChroot(record, value);
  if (attribute.isWatchList && Array.isArray(value)) {
    return value.map((path: unknown) => prependChroot(record, path));
  }
  return value;
}

/** `Record.prototype.byteLength`: the bytes `serialize` will write. */
export function recordByteLength(this: CompiledRecord): number {
  const attributes = this[ATTRIBUTES];
  let size = 0;
  for (let i = 0; i < attributes.length; i += 1) {
    const attribute = attributes[i]!;
    size += byteLengthOf(attribute, wireValue(this, attribute));
  }
  return size;
}

/** `Record.prototype.serialize`: writes the record at `offset`, returns the bytes written. */
export function recordSerialize(this: CompiledRecord, buffer: Buffer, offset: number): number {
  if (!Buffer.isBuffer(buffer)) throw new Error('buffer must an instance of Node.js Buffer class.');
  if (offset < 0 || offset >= buffer.length) throw new Error(`offset: ${offset} is out of buffer range.`);
  const attributes = this[ATTRIBUTES];
  let position = offset;
  for (let i = 0; i < attributes.length; i += 1) {
    const attribute = attributes[i]!;
    position += serializeValue(attribute, wireValue(this, attribute), buffer, position);
  }
  return position - offset;
}
