import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DigestAlgorithm } from '../../../src/steps/ingest-contracts.js';
import {
  createDigester,
  DIGEST_ALGORITHMS,
  digestOf,
  formatDigest,
  parseDigest,
  parseDigestAlgorithm,
  sameDigest,
} from '../../../src/steps/formats/digest.js';

describe('digest names, as MessageDigestValue.getAlgorithm reads them', () => {
  it.each([
    ['MD5', 'md5'],
    ['md5', 'md5'],
    ['sha1', 'sha1'],
    ['SHA-1', 'sha1'],
    ['sha-1', 'sha1'],
    ['SHA256', 'sha256'],
    ['SHA-256', 'sha256'],
    ['sha-256', 'sha256'],
    ['SHA-384', 'sha384'],
    ['sha384', 'sha384'],
    ['Sha-512', 'sha512'],
    ['CRC32', 'crc32'],
    ['CRC-32', 'crc32'],
    ['adler32', 'adler32'],
    ['ADLER-32', 'adler32'],
    // Every "-" goes, wherever it is (StringUtil.strip).
    ['s-h-a-2-5-6', 'sha256'],
    [' md5 ', 'md5'],
    ['md2', undefined],
    ['whirlpool', undefined],
    ['sha3-256', undefined],
    ['', undefined],
    ['constructor', undefined],
    ['__proto__', undefined],
  ])('reads %j as %j', (name, algorithm) => {
    expect(parseDigestAlgorithm(name)).toBe(algorithm);
  });

  it("names every algorithm of Merritt's MessageDigestType but md2", () => {
    expect([...DIGEST_ALGORITHMS].sort()).toEqual([
      'adler32',
      'crc32',
      'md5',
      'sha1',
      'sha256',
      'sha384',
      'sha512',
    ]);
  });
});

describe('digest values', () => {
  it('lowercases the value and checks its length', () => {
    expect(parseDigest('SHA-1', 'A'.repeat(40))).toEqual({ algorithm: 'sha1', value: 'a'.repeat(40) });
    expect(parseDigest('sha384', 'F'.repeat(96))).toEqual({ algorithm: 'sha384', value: 'f'.repeat(96) });
    expect(parseDigest('md5', 'abc')).toMatch(/not a md5 value \(32 hex digits\)/);
    expect(parseDigest('md5', 'g'.repeat(32))).toMatch(/not a md5 value/);
    expect(parseDigest('sha512', 'a'.repeat(96))).toMatch(/not a sha512 value \(128 hex digits\)/);
  });

  it('takes crc32 and adler32 as Merritt writes them: 8 hex digits, leading zeros kept, any case', () => {
    expect(parseDigest('CRC32', '001685F0')).toEqual({ algorithm: 'crc32', value: '001685f0' });
    expect(parseDigest('adler-32', '024d0127')).toEqual({ algorithm: 'adler32', value: '024d0127' });
    // Without its zeros, or in decimal, Merritt's string comparison would never match.
    expect(parseDigest('adler32', '24d0127')).toMatch(
      /not a adler32 value \(8 hex digits, leading zeros kept\)/,
    );
    expect(parseDigest('crc32', '1475346')).toMatch(/not a crc32 value/);
    expect(parseDigest('crc32', '0x352441c2')).toMatch(/not a crc32 value/);
  });

  it('says what is wrong with an algorithm it cannot use', () => {
    expect(parseDigest('whirlpool', '00')).toMatch(
      /unknown hash algorithm "whirlpool" \(expected md5, sha1, sha256, sha384, sha512, crc32, adler32\)/,
    );
    expect(parseDigest('MD2', '0'.repeat(32))).toMatch(
      /unsupported hash algorithm "MD2" \(this engine cannot compute md2/,
    );
  });

  it('compares digests by algorithm and value, ignoring case', () => {
    expect(sameDigest({ algorithm: 'md5', value: 'AB' }, { algorithm: 'md5', value: 'ab' })).toBe(true);
    expect(sameDigest({ algorithm: 'md5', value: 'ab' }, { algorithm: 'sha1', value: 'ab' })).toBe(false);
    expect(
      sameDigest({ algorithm: 'crc32', value: '0000000A' }, { algorithm: 'adler32', value: '0000000a' }),
    ).toBe(false);
    expect(formatDigest({ algorithm: 'crc32', value: '352441c2' })).toBe('crc32:352441c2');
  });
});

/** Published values for "abc" (RFC 1321, FIPS 180-2, and the CRC-32 and Adler-32 references). */
const ABC: Record<DigestAlgorithm, string> = {
  md5: '900150983cd24fb0d6963f7d28e17f72',
  sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
  sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  sha384: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
  sha512:
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  crc32: '352441c2',
  adler32: '024d0127',
};

describe('digesters', () => {
  it.each(Object.entries(ABC) as [DigestAlgorithm, string][])('computes %s of "abc"', (algorithm, value) => {
    const digester = createDigester(algorithm);
    digester.update(Buffer.from('abc'));
    expect(digestOf(algorithm, digester)).toEqual({ algorithm, value });
  });

  it('writes crc32 and adler32 of nothing with their leading zeros', () => {
    expect(createDigester('crc32').digest()).toBe('00000000');
    expect(createDigester('adler32').digest()).toBe('00000001');
    const x31 = createDigester('crc32');
    x31.update(new TextEncoder().encode('x31'));
    expect(x31.digest()).toBe('001685f0');
  });

  it('gives the same value however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DIGEST_ALGORITHMS),
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        (algorithm, chunks) => {
          const chunked = createDigester(algorithm);
          for (const chunk of chunks) chunked.update(chunk);
          const whole = createDigester(algorithm);
          whole.update(Buffer.concat(chunks));
          const value = chunked.digest();
          expect(value).toBe(whole.digest());
          expect(parseDigest(algorithm, value)).toEqual({ algorithm, value });
        },
      ),
      { numRuns: 300 },
    );
  });
});
