import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import adler32 from 'adler-32';
import type { Digest, DigestAlgorithm } from '../ingest-contracts.js';

/**
 * Digests as Merritt names and writes them (mrt-core `utility/MessageDigestType` and
 * `MessageDigestValue`): a name is read in any case with every `-` removed (`SHA-256`, `sha256`),
 * a value is lower-case hex, and crc32 and adler32 are the 32-bit checksum as 8 hex digits
 * (`Long.toHexString` left-padded with `0`).
 */

/** Hex length of each algorithm's value: a value of another length cannot be right. */
const HEX_LENGTH: Readonly<Record<DigestAlgorithm, number>> = {
  md5: 32,
  sha1: 40,
  sha256: 64,
  sha384: 96,
  sha512: 128,
  crc32: 8,
  adler32: 8,
};

/** Every algorithm this engine computes: Merritt's `MessageDigestType` less md2. */
export const DIGEST_ALGORITHMS = Object.keys(HEX_LENGTH) as readonly DigestAlgorithm[];

/** The algorithm checksums are computed with when the depositor gave none. */
export const DEFAULT_ALGORITHM: DigestAlgorithm = 'sha256';

/** `MessageDigestValue.getAlgorithm`'s normal form: lower case, every `-` removed. */
function normalName(name: string): string {
  return name.trim().toLowerCase().replace(/-/g, '');
}

/**
 * The algorithm named by a depositor's spelling (`SHA-256`, `sha256`, `MD5`, `CRC-32`…), or
 * undefined when it is not one this engine computes.
 */
export function parseDigestAlgorithm(name: string): DigestAlgorithm | undefined {
  const key = normalName(name);
  return Object.hasOwn(HEX_LENGTH, key) ? (key as DigestAlgorithm) : undefined;
}

function unknownAlgorithm(name: string): string {
  const expected = `expected ${DIGEST_ALGORITHMS.join(', ')}`;
  // Merritt's enum has md2 (Java computes it); Node's OpenSSL does not, so it cannot be checked here.
  if (normalName(name) === 'md2') {
    return `unsupported hash algorithm "${name}" (this engine cannot compute md2; ${expected})`;
  }
  return `unknown hash algorithm "${name}" (${expected})`;
}

/**
 * A digest from an algorithm name and a hex value (any case), or a message saying what is wrong
 * with them. crc32 and adler32 take Merritt's 8 hex digits, leading zeros included.
 */
export function parseDigest(algorithm: string, value: string): Digest | string {
  const parsed = parseDigestAlgorithm(algorithm);
  if (!parsed) return unknownAlgorithm(algorithm);
  const hex = value.trim().toLowerCase();
  const length = HEX_LENGTH[parsed];
  if (!/^[0-9a-f]+$/.test(hex) || hex.length !== length) {
    const zeros = length === 8 ? ', leading zeros kept' : '';
    return `"${value}" is not a ${parsed} value (${length} hex digits${zeros})`;
  }
  return { algorithm: parsed, value: hex };
}

/** An incremental digest of one algorithm; `digest()` is called once, after the last `update`. */
export interface Digester {
  update(chunk: Uint8Array): void;
  /** The value as Merritt writes it: lower-case hex (8 digits for crc32 and adler32). */
  digest(): string;
}

/** A 32-bit checksum fed chunk by chunk: `step(chunk, running)` gives the next running value. */
function checksumDigester(step: (chunk: Uint8Array, running: number) => number, initial: number): Digester {
  let running = initial;
  return {
    update(chunk) {
      running = step(chunk, running) >>> 0;
    },
    digest: () => running.toString(16).padStart(8, '0'),
  };
}

/** An incremental digest of one algorithm. */
export function createDigester(algorithm: DigestAlgorithm): Digester {
  if (algorithm === 'crc32') return checksumDigester((chunk, running) => crc32(chunk, running), 0);
  // Adler-32 starts from 1 (a = 1, b = 0), as java.util.zip.Adler32 does.
  if (algorithm === 'adler32') return checksumDigester((chunk, running) => adler32.buf(chunk, running), 1);
  const hash = createHash(algorithm);
  return {
    update(chunk) {
      hash.update(chunk);
    },
    digest: () => hash.digest('hex'),
  };
}

/** The finished digest of a digester. */
export function digestOf(algorithm: DigestAlgorithm, digester: Digester): Digest {
  return { algorithm, value: digester.digest() };
}

/** `sha256:ab12…`, for messages. */
export function formatDigest(digest: Digest): string {
  return `${digest.algorithm}:${digest.value}`;
}

/** Same algorithm and value (case-insensitive hex). */
export function sameDigest(a: Digest, b: Digest): boolean {
  return a.algorithm === b.algorithm && a.value.toLowerCase() === b.value.toLowerCase();
}
