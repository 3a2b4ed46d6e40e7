/**
 * jute longs, which the library keeps as 8-byte big-endian Buffers (JavaScript had no 64-bit
 * integer when it was written; its callers convert them). Each comes from Buffer's shared pool:
 * `Buffer.alloc(8)` makes a backing store per long, and a Stat has six. The 8 bytes are stored
 * one by one, which costs less than fill() or copy() for so few.
 */

/** A long of value 0. */
export function zeroLong(): Buffer {
  const long = Buffer.allocUnsafe(8);
  long[0] = 0;
  long[1] = 0;
  long[2] = 0;
  long[3] = 0;
  long[4] = 0;
  long[5] = 0;
  long[6] = 0;
  long[7] = 0;
  return long;
}

/** A copy of the 8 bytes at `offset` (a copy, not a view: the packet's buffer may be reused). */
export function readLong(buffer: Buffer, offset: number): Buffer {
  const long = Buffer.allocUnsafe(8);
  long[0] = buffer[offset]!;
  long[1] = buffer[offset + 1]!;
  long[2] = buffer[offset + 2]!;
  long[3] = buffer[offset + 3]!;
  long[4] = buffer[offset + 4]!;
  long[5] = buffer[offset + 5]!;
  long[6] = buffer[offset + 6]!;
  long[7] = buffer[offset + 7]!;
  return long;
}
