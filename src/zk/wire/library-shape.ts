/**
 * The parts of node-zookeeper-client 1.1.3 that the in-tree wire code replaces or wraps, as
 * types. Only `library.ts` loads the library; it hands these objects to `installWire`, so nothing
 * under `wire/` imports the library itself.
 */
import type { Socket } from 'node:net';

/** One attribute of a record class in the library's `lib/jute/specification.json`. */
export interface SpecAttribute {
  name: string;
  /** `int`, `long`, `buffer`, `ustring`, `boolean`, `vector<T>` or `data.Class`. */
  type: string;
}

/** `specification.json`: module (`data`, `protocol`) → class → its attributes in wire order. */
export type Specification = Record<string, Record<string, SpecAttribute[]>>;

/** A record of the library: its attributes are own properties, its codec is on the prototype. */
export interface JuteRecord {
  specification: readonly SpecAttribute[];
  chrootPath: string | undefined;
  setChrootPath(path: string | undefined): void;
  byteLength(): number;
  serialize(buffer: Buffer, offset: number): number;
  deserialize(buffer: Buffer, offset: number): number;
  [attribute: string]: unknown;
}

export type RecordClass = new (...args: unknown[]) => JuteRecord;

/** What a request carries after its header: a record, or a multi of several. */
export interface Payload {
  byteLength(): number;
  serialize(buffer: Buffer, offset: number): number;
  setChrootPath(path: string | undefined): void;
}

/** The library's `jute.Request`: a header and a payload, either of which may be null. */
export interface WireRequest {
  header: JuteRecord | null;
  payload: Payload | null;
  toBuffer: (this: WireRequest) => Buffer;
}

/** `lib/jute/index.js`: looked up by the library at every use, so its entries can be replaced. */
export interface JuteModule {
  OP_CODES: Record<string, number>;
  protocol: Record<string, RecordClass>;
  data: Record<string, RecordClass>;
  Request: { prototype: WireRequest } & (new (header: unknown, payload: unknown) => WireRequest);
  TransactionRequest: unknown;
  TransactionResponse: unknown;
}

/** A ConnectionManager, as far as the wire code reads it. */
export interface ManagerInternals {
  state: number;
  socket?: Socket | null;
}

/** `lib/ConnectionManager.js`: its prototype's methods are looked up at every call. */
export interface ConnectionManagerClass {
  prototype: { onPacketQueueReadable: (this: ManagerInternals) => void };
  STATES: Record<string, number>;
}

/** Everything `installWire` needs from the library. */
export interface ZkLibrary {
  jute: JuteModule;
  specification: Specification;
  ConnectionManager: ConnectionManagerClass;
}
