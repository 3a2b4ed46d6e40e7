/**
 * Constructors for the library's record classes (`jute.protocol.*`, `jute.data.*`). The library's
 * own parse each attribute's type with a regular expression and allocate a fresh backing store
 * per long on every record made; these use the compiled attributes and pooled longs. They share
 * the library's prototypes, so `instanceof` and the prototype's methods hold for records made by
 * either.
 */
import type { JuteRecord, RecordClass } from './library-shape.js';
import { zeroLong } from './longs.js';
import {
  KIND_BOOLEAN,
  KIND_BUFFER,
  KIND_INT,
  KIND_LONG,
  KIND_USTRING,
  KIND_VECTOR,
  type Attribute,
  type RecordType,
} from './record-types.js';

/**
 * Classes the library only ever makes to decode a reply into (ConnectionManager does
 * `new jute.protocol.GetDataResponse()`, then deserialize). Made without arguments, a record of
 * one is blank: deserialize sets every attribute.
 */
export function isReplyClass(name: string): boolean {
  return name.endsWith('Response') || name === 'protocol.ReplyHeader' || name === 'protocol.WatcherEvent';
}

/** The attributes given to a constructor, positionally, or their defaults. */
function setAttributes(
  record: JuteRecord,
  attributes: readonly Attribute[],
  args: readonly unknown[],
  classes: ReadonlyMap<RecordType, RecordClass>,
  RecordBase: abstract new (...args: never[]) => unknown,
): void {
  for (let i = 0; i < attributes.length; i += 1) {
    const attribute = attributes[i]!;
    const arg = args[i];
    switch (attribute.kind) {
      case KIND_INT:
        record[attribute.name] = typeof arg === 'number' ? arg : 0;
        break;
      case KIND_LONG: {
        const long = zeroLong();
        if (Buffer.isBuffer(arg)) arg.copy(long);
        record[attribute.name] = long;
        break;
      }
      case KIND_BUFFER:
        record[attribute.name] = Buffer.isBuffer(arg) ? copyOf(arg) : undefined;
        break;
      case KIND_USTRING:
        record[attribute.name] = typeof arg === 'string' ? arg : undefined;
        break;
      case KIND_BOOLEAN:
        record[attribute.name] = typeof arg === 'boolean' ? arg : false;
        break;
      case KIND_VECTOR:
        record[attribute.name] = Array.isArray(arg) ? arg : undefined;
        break;
      default: {
        const Nested = classes.get(attribute.record!)!;
        record[attribute.name] = arg instanceof RecordBase ? arg : new Nested();
      }
    }
  }
}

/** Every byte is overwritten by the copy: no need to zero it first. */
function copyOf(source: Buffer): Buffer {
  const copy = Buffer.allocUnsafe(source.length);
  source.copy(copy);
  return copy;
}

/**
 * A constructor per record type, sharing the type's prototype (whose `constructor` it becomes).
 * `RecordBase` is the library's Record: a nested record given as an argument is taken as it is.
 */
export function makeRecordClasses(
  types: Iterable<RecordType>,
  RecordBase: abstract new (...args: never[]) => unknown,
): Map<RecordType, RecordClass> {
  const classes = new Map<RecordType, RecordClass>();
  for (const type of types) {
    const { specification, attributes } = type;
    const replyOnly = isReplyClass(type.name);
    function JuteRecordClass(this: JuteRecord, ...args: unknown[]): void {
      this.specification = specification;
      this.chrootPath = undefined;
      if (replyOnly && args.length === 0) return;
      setAttributes(this, attributes, args, classes, RecordBase);
    }
    JuteRecordClass.prototype = type.prototype;
    Object.defineProperty(type.prototype, 'constructor', {
      value: JuteRecordClass,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    classes.set(type, JuteRecordClass as unknown as RecordClass);
  }
  return classes;
}
