import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer tokens, stored as `sha256$<hex>`. A token is 32 random bytes (256 bits) that nobody
 * chose, so no guess list or brute force can find it from its digest: one SHA-256 keeps a stolen
 * file from being a list of tokens at no cost per request. Passwords, which people choose, need a
 * slow hash instead (password-hash.ts). MRTQ_API_TOKEN, chosen by an operator, is hashed the same
 * way in memory: it sits in clear in the environment anyway.
 */

const PREFIX = 'sha256$';
/** Marks a token as this service's (secret scanners and people can tell it from other strings). */
const TOKEN_PREFIX = 'mrtq_';

/** A new token: `mrtq_` and 32 random bytes in base64url (43 characters). */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

function sha256(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The stored form of `token`: `sha256$<64 hex>`. */
export function hashToken(token: string): string {
  return PREFIX + sha256(token).toString('hex');
}

/** The digest a stored `sha256$<hex>` holds, or undefined when `text` is not one. */
export function parseTokenHash(text: string): Buffer | undefined {
  const match = /^sha256\$([0-9a-f]{64})$/.exec(text.trim());
  return match ? Buffer.from(match[1]!, 'hex') : undefined;
}

/**
 * The index of the digest in `digests` that `token` hashes to, or -1. Every digest is compared,
 * each with `timingSafeEqual`, so the time taken tells nothing of which one matched or how much
 * of one did.
 */
export function matchToken(token: string, digests: readonly Buffer[]): number {
  const digest = sha256(token);
  let found = -1;
  digests.forEach((candidate, index) => {
    if (timingSafeEqual(digest, candidate) && found < 0) found = index;
  });
  return found;
}
