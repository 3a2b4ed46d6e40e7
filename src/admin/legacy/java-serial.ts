/**
 * Just enough of Java's object serialization (the Java Object Serialization Specification, §6)
 * to read what Merritt's ingest queued before February 2024: a `java.util.Properties` written with
 * `ObjectOutputStream.writeObject` (mrt-ingest `HandlerSubmit`), whose values are strings and a
 * `java.lang.Boolean` (`update`). Arrays, enums, class objects and externalizable classes are
 * refused: such a record is not one ingest wrote.
 */

const MAGIC = 0xaced;
const BASE_HANDLE = 0x7e0000;
const SC_WRITE_METHOD = 0x01;
const SC_EXTERNALIZABLE = 0x04;

/** A stream this reader cannot read, and why. */
export class JavaStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JavaStreamError';
  }
}

interface ClassDesc {
  name: string;
  flags: number;
  fields: { type: string; name: string }[];
  superDesc: ClassDesc | null;
}

/** One deserialized object: its field values and what each class's writeObject wrote, per class name. */
interface JavaObject {
  className: string;
  fields: Map<string, unknown>;
  annotations: Map<string, unknown[]>;
}

const END = Symbol('TC_ENDBLOCKDATA');

class StreamReader {
  private pos = 0;
  private readonly handles: unknown[] = [];

  constructor(private readonly buf: Buffer) {}

  private take(n: number): Buffer {
    if (this.pos + n > this.buf.length)
      throw new JavaStreamError(`truncated: needs ${this.pos + n} bytes, has ${this.buf.length}`);
    const slice = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return slice;
  }
  private u8 = () => this.take(1).readUInt8(0);
  private u16 = () => this.take(2).readUInt16BE(0);
  private u32 = () => this.take(4).readUInt32BE(0);
  private utf = (length = this.u16()) => this.take(length).toString('utf8');

  readStream(): unknown {
    if (this.u16() !== MAGIC || this.u16() !== 5) throw new JavaStreamError('not a Java object stream');
    const value = this.content();
    if (this.pos !== this.buf.length)
      throw new JavaStreamError(`${this.buf.length - this.pos} bytes after the object`);
    return value;
  }

  private newHandle(value: unknown): number {
    return this.handles.push(value) - 1;
  }

  private content(): unknown {
    const tc = this.u8();
    switch (tc) {
      case 0x70:
        return null;
      case 0x71: {
        const handle = this.u32() - BASE_HANDLE;
        if (handle < 0 || handle >= this.handles.length) throw new JavaStreamError(`bad reference ${handle}`);
        return this.handles[handle];
      }
      case 0x74:
      case 0x7c: {
        const text = tc === 0x74 ? this.utf() : this.utf(Number(this.take(8).readBigUInt64BE(0)));
        this.newHandle(text);
        return text;
      }
      case 0x72:
        return this.classDesc();
      case 0x73:
        return this.object();
      case 0x77:
        return this.take(this.u8());
      case 0x7a:
        return this.take(this.u32());
      case 0x78:
        return END;
      default:
        throw new JavaStreamError(`unsupported element 0x${tc.toString(16)} at byte ${this.pos - 1}`);
    }
  }

  private classDesc(): ClassDesc {
    const name = this.utf();
    this.take(8); // serialVersionUID
    const desc: ClassDesc = { name, flags: 0, fields: [], superDesc: null };
    this.newHandle(desc);
    desc.flags = this.u8();
    const count = this.u16();
    for (let i = 0; i < count; i += 1) {
      const type = String.fromCharCode(this.u8());
      const fieldName = this.utf();
      if (type === 'L' || type === '[') this.content(); // the field's class name
      desc.fields.push({ type, name: fieldName });
    }
    this.annotation();
    desc.superDesc = this.descOrNull();
    return desc;
  }

  private descOrNull(): ClassDesc | null {
    const value = this.content();
    if (value === null) return null;
    if (typeof value === 'object' && value !== null && 'flags' in value) return value as ClassDesc;
    throw new JavaStreamError('expected a class description');
  }

  private annotation(): unknown[] {
    const items: unknown[] = [];
    for (let item = this.content(); item !== END; item = this.content()) items.push(item);
    return items;
  }

  private object(): JavaObject {
    const desc = this.descOrNull();
    if (!desc) throw new JavaStreamError('object without a class');
    const object: JavaObject = { className: desc.name, fields: new Map(), annotations: new Map() };
    this.newHandle(object);
    const chain: ClassDesc[] = [];
    for (let d: ClassDesc | null = desc; d; d = d.superDesc) chain.unshift(d);
    for (const cls of chain) {
      if (cls.flags & SC_EXTERNALIZABLE) throw new JavaStreamError(`externalizable class ${cls.name}`);
      for (const field of cls.fields) object.fields.set(field.name, this.fieldValue(field.type));
      if (cls.flags & SC_WRITE_METHOD) object.annotations.set(cls.name, this.annotation());
    }
    return object;
  }

  private fieldValue(type: string): unknown {
    switch (type) {
      case 'B':
        return this.take(1).readInt8(0);
      case 'C':
        return String.fromCharCode(this.u16());
      case 'S':
        return this.take(2).readInt16BE(0);
      case 'I':
        return this.take(4).readInt32BE(0);
      case 'F':
        return this.take(4).readFloatBE(0);
      case 'J':
        return this.take(8).readBigInt64BE(0);
      case 'D':
        return this.take(8).readDoubleBE(0);
      case 'Z':
        return this.u8() !== 0;
      default:
        return this.content();
    }
  }
}

const isJavaObject = (value: unknown): value is JavaObject =>
  typeof value === 'object' && value !== null && 'annotations' in value;

/** A property value as text: a string, or a boxed Boolean or number (`update` is a Boolean). */
function propertyText(key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (isJavaObject(value) && /^java\.lang\.(Boolean|Integer|Long|Short|Byte)$/.test(value.className))
    return String(value.fields.get('value'));
  throw new JavaStreamError(`property "${key}" is not text`);
}

/**
 * The entries of a serialized `java.util.Properties` (or `Hashtable`), as text; JavaStreamError
 * saying what is wrong when the bytes are not one.
 */
export function readJavaProperties(bytes: Buffer): Record<string, string> {
  const root = new StreamReader(bytes).readStream();
  if (!isJavaObject(root) || !/^java\.util\.(Properties|Hashtable)$/.test(root.className))
    throw new JavaStreamError(
      `the object is ${isJavaObject(root) ? root.className : 'no object'}, not Properties`,
    );
  const written = (root.annotations.get('java.util.Hashtable') ?? []).filter(
    (item) => !Buffer.isBuffer(item),
  );
  if (written.length % 2 !== 0) throw new JavaStreamError('a key without a value');
  const entries: Record<string, string> = {};
  for (let i = 0; i < written.length; i += 2) {
    const key = written[i];
    if (typeof key !== 'string') throw new JavaStreamError('a key that is not text');
    entries[key] = propertyText(key, written[i + 1]);
  }
  return entries;
}
