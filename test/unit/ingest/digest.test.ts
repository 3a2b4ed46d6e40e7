import { describe, expect, it } from 'vitest';
import { parseDigest, parseDigestAlgorithm, sameDigest } from '../../../src/steps/ingest/digest.js';

describe('digests', () => {
  it.each([
    ['MD5', 'md5'],
    ['sha-1', 'sha1'],
    ['SHA256', 'sha256'],
    ['Sha-512', 'sha512'],
    ['crc32', undefined],
    ['', undefined],
    ['constructor', undefined],
  ])('reads the algorithm name %j as %j', (name, algorithm) => {
    expect(parseDigestAlgorithm(name)).toBe(algorithm);
  });

  it('lowercases the value and checks its length', () => {
    expect(parseDigest('SHA-1', 'A'.repeat(40))).toEqual({ algorithm: 'sha1', value: 'a'.repeat(40) });
    expect(parseDigest('md5', 'abc')).toMatch(/not a md5 value \(32 hex digits\)/);
    expect(parseDigest('md5', 'g'.repeat(32))).toMatch(/not a md5 value/);
    expect(parseDigest('whirlpool', '00')).toMatch(/unknown hash algorithm "whirlpool"/);
  });

  it('compares digests by algorithm and value, ignoring case', () => {
    expect(sameDigest({ algorithm: 'md5', value: 'AB' }, { algorithm: 'md5', value: 'ab' })).toBe(true);
    expect(sameDigest({ algorithm: 'md5', value: 'ab' }, { algorithm: 'sha1', value: 'ab' })).toBe(false);
  });
});
