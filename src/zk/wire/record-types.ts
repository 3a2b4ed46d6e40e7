/**
 * The library's record specifications, parsed once. Its codec matched every attribute's type
 * against regular expressions on every encode and decode, which was most of the cost of a request;
 * here each class is compiled once, at install, into attributes that carry their kind, a vector's
 * element type and a nested record's type.
 */
import type { JuteRecord, SpecAttribute, Specification } from './library-shape.js';

export const KIND_INT = 0;
export const KIND_LONG = 1;
export const KIND_BUFFER = 2;
export const KIND_USTRING = 3;
export const KIND_BOOLEAN = 4;
export const KIND_VECTOR = 5;
export const KIND_RECORD = 6;

/** A parsed attribute type. Every one has the same fields, so the codec's reads stay monomorphic. */
export interface FieldType {
  readonly kind: number;
  /** A vector's element type. */
  readonly element: FieldType | undefined;
  /** A nested record's class name (`data.Stat` → `Stat`) and, once all are compiled, its type. */
  readonly className: string | undefined;
  record: RecordType | undefined;
}

export interface Attribute extends FieldType {
  readonly name: string;
  /** `path` goes on the wire with the chroot in front, and comes back without it. */
  readonly isPath: boolean;
  /** SetWatches' path lists get the chroot in front of each path. */
  readonly isWatchList: boolean;
}

export interface RecordType {
  readonly name: string;
  readonly specification: readonly SpecAttribute[];
  readonly attributes: readonly Attribute[];
  /** The prototype shared by every record of the class (the library's own, so instanceof holds). */
  readonly prototype: object;
  /**
   * A record to decode into: deserialize sets every attribute, so none of the defaults the
   * constructor builds only to be replaced (a Stat has six longs).
   */
  readonly blank: () => JuteRecord;
}

/** Where the compiled attributes live: on each class's prototype, read by the codec as `this[ATTRIBUTES]`. */
export const ATTRIBUTES: unique symbol = Symbol('jute attributes');

const WATCH_LISTS = new Set(['dataWatches', 'existWatches', 'childWatches']);

/**
 * Every parsed type, attribute or vector element, is made by this one class: objects of one shape,
 * so the codec's reads of them stay monomorphic (object literals of several shapes made measuring
 * a multi 40% slower, measured).
 */
class CompiledType implements Attribute {
  record: RecordType | undefined = undefined;

  constructor(
    readonly kind: number,
    readonly element: FieldType | undefined,
    readonly className: string | undefined,
    readonly name: string,
    readonly isPath: boolean,
    readonly isWatchList: boolean,
  ) {}
}

const SIMPLE_KINDS: Readonly<Record<string, number>> = {
  int: KIND_INT,
  long: KIND_LONG,
  buffer: KIND_BUFFER,
  ustring: KIND_USTRING,
  boolean: KIND_BOOLEAN,
};

/** The type `type` of attribute `name` ('' for a vector's element). */
function parseType(type: string, name: string): CompiledType {
  const isPath = name === 'path';
  const isWatchList = WATCH_LISTS.has(name);
  const simple = SIMPLE_KINDS[type];
  if (simple !== undefined) return new CompiledType(simple, undefined, undefined, name, isPath, isWatchList);
  const vector = /^vector<([\w.]+)>$/.exec(type);
  if (vector) {
    const element = parseType(vector[1]!, '');
    return new CompiledType(KIND_VECTOR, element, undefined, name, isPath, isWatchList);
  }
  const nested = /^data\.(\w+)$/.exec(type);
  if (nested) return new CompiledType(KIND_RECORD, undefined, nested[1], name, isPath, isWatchList);
  throw new Error(`Unknown type: ${type}`);
}

/** A constructor per class that makes a blank record (see {@link RecordType.blank}). */
function blankMaker(prototype: object, specification: readonly SpecAttribute[]): () => JuteRecord {
  function Blank(this: { specification: unknown; chrootPath: unknown }): void {
    this.specification = specification;
    this.chrootPath = undefined;
  }
  Blank.prototype = prototype;
  const BlankRecord = Blank as unknown as new () => JuteRecord;
  return () => new BlankRecord();
}

/**
 * Compiles every class of `specification` (module → class → attributes) whose prototype
 * `prototypeOf` gives, and links nested record types (`data.ACL` holds a `data.Id`).
 */
export function compileRecordTypes(
  specification: Specification,
  prototypeOf: (moduleName: string, className: string) => object,
): Map<string, RecordType> {
  const types = new Map<string, RecordType>();
  for (const [moduleName, classes] of Object.entries(specification)) {
    for (const [className, attributes] of Object.entries(classes)) {
      const prototype = prototypeOf(moduleName, className);
      types.set(`${moduleName}.${className}`, {
        name: `${moduleName}.${className}`,
        specification: attributes,
        attributes: attributes.map(({ name, type }) => parseType(type, name)),
        prototype,
        blank: blankMaker(prototype, attributes),
      });
    }
  }
  for (const type of types.values()) {
    for (const attribute of type.attributes) linkRecords(attribute, types);
  }
  return types;
}

function linkRecords(type: FieldType, types: ReadonlyMap<string, RecordType>): void {
  if (type.element) linkRecords(type.element, types);
  if (type.className === undefined) return;
  const record = types.get(`data.${type.className}`);
  if (!record) throw new Error(`Unknown record type: data.${type.className}`);
  type.record = record;
}
