import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords of HTTP basic users (Merritt's front door), stored as `scrypt$N$r$p$<salt>$<key>`
 * (base64): a person chooses a password, so it may be guessable, and only a slow, memory-hard
 * hash makes trying guesses against a stolen file expensive. Never stored or logged in clear.
 */

const KEY_BYTES = 32;
const DEFAULTS = { N: 16384, r: 8, p: 1 } as const;
/** Above this an operator's typo (or a hostile file) would cost each request too much memory. */
const MAX_COST = 1 << 20;

export interface PasswordHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function derive(password: string, hash: Pick<PasswordHash, 'N' | 'r' | 'p' | 'salt'>, bytes: number) {
  const options: ScryptOptions = { N: hash.N, r: hash.r, p: hash.p, maxmem: 256 * hash.N * hash.r + 1024 };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, hash.salt, bytes, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The `scrypt$N$r$p$salt$key` hash of `password`, with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, { ...DEFAULTS, salt }, KEY_BYTES);
  return `scrypt$${DEFAULTS.N}$${DEFAULTS.r}$${DEFAULTS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A stored hash, or undefined when `text` is not one (or asks for an unreasonable cost). */
export function parsePasswordHash(text: string): PasswordHash | undefined {
  const parts = text.trim().split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const key = Buffer.from(parts[5]!, 'base64');
  const powerOfTwo = Number.isInteger(N) && N > 1 && N <= MAX_COST && (N & (N - 1)) === 0;
  if (!powerOfTwo || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) return undefined;
  if (salt.length < 8 || key.length < 16) return undefined;
  return { N, r, p, salt, key };
}

/** Compared with when the user is unknown, so that an unknown user takes as long as a wrong password. */
const DECOY: PasswordHash = { ...DEFAULTS, salt: randomBytes(16), key: randomBytes(KEY_BYTES) };

/**
 * Whether `password` matches `hash`, compared through scrypt and `timingSafeEqual`; without a
 * hash (an unknown user) a decoy is derived all the same, so the answer takes as long.
 */
export async function verifyPassword(password: string, hash: PasswordHash | undefined): Promise<boolean> {
  const against = hash ?? DECOY;
  const key = await derive(password, against, against.key.length);
  return timingSafeEqual(key, against.key) && hash !== undefined;
}
