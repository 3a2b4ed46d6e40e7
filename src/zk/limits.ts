import { ZkError } from './errors.js';

/**
 * The server drops the connection on any request packet larger than jute.maxbuffer (default
 * 0xfffff bytes) instead of answering, so a 1 MiB create, which the library lets through, fails
 * as CONNECTION_LOSS. We refuse such requests up front with BAD_ARGUMENTS.
 */
export const MAX_REQUEST_BYTES = 0xfffff;

/** Upper bound of the framing of one op: header, lengths, ACL, flags (measured exact size is ~50). */
const OP_OVERHEAD_BYTES = 64;

export interface SizedOp {
  path: string;
  /** A string is measured as its UTF-8 bytes, without encoding it. */
  data: Buffer | string | null | undefined;
}

const dataBytes = (data: SizedOp['data']): number =>
  typeof data === 'string' ? Buffer.byteLength(data) : (data?.length ?? 0);

/** A generous estimate of a request's size on the wire, chroot prefix included. */
export function estimateRequestBytes(ops: readonly SizedOp[], chroot: string | undefined): number {
  const chrootBytes = chroot ? Buffer.byteLength(chroot) : 0;
  return ops.reduce(
    (total, op) => total + OP_OVERHEAD_BYTES + chrootBytes + Buffer.byteLength(op.path) + dataBytes(op.data),
    OP_OVERHEAD_BYTES,
  );
}

/** Throws BAD_ARGUMENTS when the request would exceed what the server accepts. */
export function assertRequestFits(
  operation: string,
  ops: readonly SizedOp[],
  chroot: string | undefined,
): void {
  const bytes = estimateRequestBytes(ops, chroot);
  if (bytes <= MAX_REQUEST_BYTES) return;
  const path = ops.length === 1 ? ops[0]?.path : undefined;
  const what = ops.length === 1 ? `${operation} ${path}` : `${operation} of ${ops.length} ops`;
  throw new ZkError('BAD_ARGUMENTS', {
    operation,
    path,
    message:
      `${what}: about ${bytes} bytes, over ZooKeeper's request limit of ${MAX_REQUEST_BYTES} bytes ` +
      '(node data is limited to about 1 MiB; split bulk writes into smaller transactions)',
  });
}
