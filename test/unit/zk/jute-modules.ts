/**
 * The library's jute module twice, for the wire tests: as `src/zk/library.ts` leaves it (the
 * in-tree codec installed), and a fresh copy of the same file, which patches/ does not touch, so
 * it runs the library's own codec: the reference the in-tree one must match byte for byte.
 */
import { createRequire } from 'node:module';
import '../../../src/zk/library.js';

export interface Rec {
  byteLength(): number;
  serialize(buffer: Buffer, offset: number): number;
  deserialize(buffer: Buffer, offset: number): number;
  setChrootPath(path: string | undefined): void;
  [attribute: string]: unknown;
}
export type RecClass = new (...args: unknown[]) => Rec;
export interface Jute {
  OP_CODES: Record<string, number>;
  protocol: Record<string, RecClass>;
  data: Record<string, RecClass>;
  Request: new (header: Rec | null, payload: unknown) => { toBuffer(): Buffer };
  TransactionRequest: new (ops: object[]) => Rec;
  TransactionResponse: new () => Rec & { results: Array<Record<string, unknown>>; unimplemented?: boolean };
}
export type Specification = Record<
  'data' | 'protocol',
  Record<string, Array<{ name: string; type: string }>>
>;

const load = createRequire(import.meta.url);
const JUTE = load.resolve('node-zookeeper-client/lib/jute/index.js');

/** The library's jute module, with the in-tree codec installed. */
export const jute = load(JUTE) as Jute;

/** A fresh copy of the library's jute module: its own codec, untouched. */
export function freshJute(): Jute {
  const cached = load.cache[JUTE];
  delete load.cache[JUTE];
  try {
    return load(JUTE) as Jute;
  } finally {
    load.cache[JUTE] = cached;
  }
}

/** The reference codec. */
export const upstream = freshJute();

export const specification = load('node-zookeeper-client/lib/jute/specification.json') as Specification;

/** The library's ACL helpers (their toRecord makes records through the installed module). */
export const { ACL } = load('node-zookeeper-client') as {
  ACL: { OPEN_ACL_UNSAFE: Array<{ toRecord(): Rec }>; fromRecord(record: Rec): unknown };
};

/** A record's attributes as plain values, nested records included, for comparing two records. */
export function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object' && !Buffer.isBuffer(value) && 'specification' in value) {
    const record = value as Rec & { specification: Array<{ name: string }> };
    return Object.fromEntries(record.specification.map(({ name }) => [name, plain(record[name])]));
  }
  return value;
}
