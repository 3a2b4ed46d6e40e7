import { describe, expect, it } from 'vitest';
import { hashToken, matchToken, newToken, parseTokenHash } from '../../../src/auth/token-hash.js';

describe('bearer tokens, stored as their SHA-256', () => {
  it('makes tokens of 32 random bytes, each new', () => {
    const token = newToken();
    expect(token).toMatch(/^mrtq_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(5), 'base64url')).toHaveLength(32);
    expect(newToken()).not.toBe(token);
  });

  it('stores a digest that does not contain the token, and finds the token among others by it', () => {
    const [a, b] = [newToken(), newToken()];
    const stored = hashToken(a);
    expect(stored).toMatch(/^sha256\$[0-9a-f]{64}$/);
    expect(stored).not.toContain(a.slice(5));
    const digests = [hashToken(b), stored].map((text) => parseTokenHash(text)!);
    expect(matchToken(a, digests)).toBe(1);
    expect(matchToken(b, digests)).toBe(0);
    expect(matchToken('mrtq_wrong', digests)).toBe(-1);
    expect(matchToken(a, [])).toBe(-1);
  });

  it('refuses a stored value that is not a SHA-256 digest', () => {
    expect(parseTokenHash('sha256$abc')).toBeUndefined();
    expect(parseTokenHash('md5$' + '0'.repeat(64))).toBeUndefined();
  });
});
