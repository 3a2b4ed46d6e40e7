import { createHash, type Hash } from 'node:crypto';
import type { Digest, DigestAlgorithm } from './contracts.js';

/** Hex length of each algorithm's digest: a value of another length cannot be right. */
const HEX_LENGTH: Readonly<Record<DigestAlgorithm, number>> = {
  md5: 32,
  sha1: 40,
  sha256: 64,
  sha512: 128,
};

/** The algorithm checksums are computed with when the depositor gave none. */
export const DEFAULT_ALGORITHM: DigestAlgorithm = 'sha256';

/**
 * The algorithm named by a depositor's spelling (`SHA-256`, `sha256`, `MD5`…), or undefined
 * when it is not one this engine computes.
 */
export function parseDigestAlgorithm(name: string): DigestAlgorithm | undefined {
  const key = name.trim().toLowerCase().replace(/-/g, '');
  return Object.hasOwn(HEX_LENGTH, key) ? (key as DigestAlgorithm) : undefined;
}

/** A digest from an algorithm name and a hex value, or a message saying what is wrong with them. */
export function parseDigest(algorithm: string, value: string): Digest | string {
  const parsed = parseDigestAlgorithm(algorithm);
  if (!parsed) return `unknown hash algorithm "${algorithm}" (expected md5, sha1, sha256 or sha512)`;
  const hex = value.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(hex) || hex.length !== HEX_LENGTH[parsed]) {
    return `"${value}" is not a ${parsed} value (${HEX_LENGTH[parsed]} hex digits)`;
  }
  return { algorithm: parsed, value: hex };
}

/** An incremental hash of one algorithm. */
export function createDigester(algorithm: DigestAlgorithm): Hash {
  return createHash(algorithm);
}

/** The finished digest of a hash. */
export function digestOf(algorithm: DigestAlgorithm, hash: Hash): Digest {
  return { algorithm, value: hash.digest('hex') };
}

/** `sha256:ab12…`, for messages. */
export function formatDigest(digest: Digest): string {
  return `${digest.algorithm}:${digest.value}`;
}

/** Same algorithm and value (case-insensitive hex). */
export function sameDigest(a: Digest, b: Digest): boolean {
  return a.algorithm === b.algorithm && a.value.toLowerCase() === b.value.toLowerCase();
}
