import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

/**
 * HTTP basic credentials for Merritt's front door (`/poster/*`), as Merritt deploys it behind a
 * web server that checks them. The file (`MRTQ_BASIC_AUTH`) holds one `user:<hash>` a line
 * (`#` comments and blank lines ignored); a hash is `scrypt$N$r$p$<salt>$<key>` (base64), made
 * by {@link hashPassword} or the one-liner in docs/http.md. Passwords are never stored or logged;
 * they are compared through scrypt and `timingSafeEqual`, and an unknown user costs the same.
 */

const KEY_BYTES = 32;
const DEFAULTS = { N: 16384, r: 8, p: 1 } as const;
/** Above this an operator's typo (or a hostile file) would cost each request too much memory. */
const MAX_COST = 1 << 20;

interface PasswordHash {
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

/** The `scrypt$N$r$p$salt$key` hash of `password`, for a line `user:<hash>` of the credentials file. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, { ...DEFAULTS, salt }, KEY_BYTES);
  return `scrypt$${DEFAULTS.N}$${DEFAULTS.r}$${DEFAULTS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

function parseHash(text: string): PasswordHash | undefined {
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

/** The users of a credentials file's text; a line that is not `user:<scrypt hash>` is an error naming it. */
export function parseCredentials(text: string, source: string): Map<string, PasswordHash> {
  const users = new Map<string, PasswordHash>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const hash = colon > 0 ? parseHash(line.slice(colon + 1)) : undefined;
    if (!hash)
      throw new Error(`${source} line ${index + 1}: expected user:scrypt$N$r$p$<salt>$<key> (docs/http.md)`);
    users.set(line.slice(0, colon), hash);
  });
  return users;
}

/** User and password of an `Authorization: Basic …` header, or undefined when it is not one. */
export function basicCredentialsOf(
  header: string | undefined,
): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Checks user names and passwords against a credentials file. */
export interface BasicCredentials {
  verify(user: string, password: string): Promise<boolean>;
}

/** Compared with when the user is unknown, so that an unknown user takes as long as a wrong password. */
const DECOY: PasswordHash = { ...DEFAULTS, salt: randomBytes(16), key: randomBytes(KEY_BYTES) };

/**
 * The credentials of `file`, read now (an unreadable or malformed file throws, so a service
 * refuses to start with it) and again whenever the file changes (users added without a restart).
 */
export function basicCredentials(file: string): BasicCredentials {
  const versionOf = (info: Stats): string => `${info.mtimeMs}:${info.size}`;
  let seen = versionOf(statSync(file));
  let users = parseCredentials(readFileSync(file, 'utf8'), file);
  const current = async (): Promise<Map<string, PasswordHash>> => {
    const version = versionOf(await stat(file));
    if (version !== seen) {
      users = parseCredentials(await readFile(file, 'utf8'), file);
      seen = version;
    }
    return users;
  };
  return {
    async verify(user, password) {
      const known = (await current()).get(user);
      const hash = known ?? DECOY;
      const key = await derive(password, hash, hash.key.length);
      return timingSafeEqual(key, hash.key) && known !== undefined;
    },
  };
}
