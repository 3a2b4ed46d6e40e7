/**
 * multiRead (ZooKeeper 3.6+, op 22): several getData requests in one, each answered on its own
 * (a missing node is an error result, not a failed request). Its request and reply have a
 * multi's layout, so the multi records carry it (`transaction-records.ts`).
 *
 * The library picks how to read a reply by its request's header type and has no case for 22: it
 * drops the connection on a type it does not know. So the header of a multiRead reads as MULTI to
 * the library, which then reads the reply as a multi's, and writes 22 on the wire.
 */
import type { JuteModule, JuteRecord, WireRequest } from './library-shape.js';
import type { TransactionClasses } from './transaction-records.js';

const MULTI_READ = 22;

/** ZooKeeper's UNIMPLEMENTED error code. */
const UNIMPLEMENTED = -6;

/** Writes a RequestHeader with op 22, whatever its `type` says (see above). */
function serializeAsMultiRead(this: JuteRecord, buffer: Buffer, offset: number): number {
  buffer.writeInt32BE(this['xid'] as number, offset);
  buffer.writeInt32BE(MULTI_READ, offset + 4);
  return 8;
}

/** A multiRead of getData requests without watches, one per path, for ConnectionManager.queue. */
export function multiReadRequest(jute: JuteModule, paths: readonly string[]): WireRequest {
  const header = new jute.protocol['RequestHeader']!();
  header['type'] = jute.OP_CODES['MULTI'];
  header.serialize = serializeAsMultiRead;
  const { TransactionRequest } = jute as unknown as TransactionClasses;
  const GET_DATA = jute.OP_CODES['GET_DATA']!;
  const payload = new TransactionRequest(paths.map((path) => ({ type: GET_DATA, path })));
  return new jute.Request(header, payload);
}

/**
 * True when the server does not implement multiRead: before 3.6 it answers an op it does not
 * know with a bare reply header (see `TransactionResponse.unimplemented`), or with UNIMPLEMENTED.
 */
export function serverLacksMultiRead(err: unknown, payload: unknown): boolean {
  if ((err as { code?: unknown } | null)?.code === UNIMPLEMENTED) return true;
  return !err && (payload as { unimplemented?: boolean } | null | undefined)?.unimplemented === true;
}
