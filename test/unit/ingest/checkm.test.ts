import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCheckm, serializeCheckm } from '../../../src/steps/ingest/checkm.js';
import { ManifestError } from '../../../src/steps/ingest/errors.js';

const MERRITT = [
  '%checkm_0.7',
  '%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest',
  '%prefix | mrt: | http://merritt.cdlib.org/terms#',
  '%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
  '%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:mimeType',
  '# a comment',
  '',
  `http://example.org/a.txt | MD5 | ${'A'.repeat(32)} | 12 | 2020-01-01 | a.txt | text/plain`,
  'http://example.org/b.txt | | | | | dir/b.txt',
  '%eof',
  'anything after the end | is ignored',
].join('\r\n');

function parseError(text: string): ManifestError {
  try {
    parseCheckm(text, 'm');
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return err as ManifestError;
  }
  throw new Error('expected a ManifestError');
}

const HEAD = '%checkm_0.7\n%fields | nfo:fileUrl | nfo:fileSize | nfo:hashAlgorithm | nfo:hashValue\n';

describe('parsing checkm manifests', () => {
  it('reads a Merritt object manifest with comments, CRLF, short lines and %eof', () => {
    const manifest = parseCheckm(MERRITT);
    expect(manifest.profile).toBe('http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest');
    expect(manifest.entries).toHaveLength(2);
    expect(manifest.entries[0]).toMatchObject({
      line: 8,
      fileUrl: 'http://example.org/a.txt',
      digest: { algorithm: 'md5', value: 'a'.repeat(32) },
      fileSize: 12,
      fileLastModified: '2020-01-01',
      fileName: 'a.txt',
    });
    expect(manifest.entries[0]?.values['mrt:mimeType']).toBe('text/plain');
    expect(manifest.entries[1]).toMatchObject({ line: 9, fileName: 'dir/b.txt' });
    expect(manifest.entries[1]?.digest).toBeUndefined();
    expect(manifest.entries[1]?.values['mrt:mimeType']).toBe('');
  });

  it('reads the mrt: fields of a batch manifest and accepts a BOM', () => {
    const text =
      '\uFEFF%checkm_0.7\n%fields | nfo:fileUrl | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n' +
      'http://e.org/m1.checkm | ark:/1/x | loc-1 | Ann | A title | 2024\n';
    expect(parseCheckm(text).entries[0]).toMatchObject({
      primaryIdentifier: 'ark:/1/x',
      localIdentifier: 'loc-1',
      creator: 'Ann',
      title: 'A title',
      date: '2024',
    });
  });

  it.each([
    ['', /line 1: the manifest is empty/],
    ['hello\n', /m line 1: expected the header %checkm_0.7, found "hello"/],
    ['%checkm_0.7\nhttp://e.org/a\n', /m line 2: an entry before the %fields line/],
    ['%checkm_0.7\n# nothing\n', /m: no %fields line/],
    ['%checkm_0.7\n%fields | nfo:fileName\nx\n', /m line 2: %fields has no nfo:fileUrl/],
    ['%checkm_0.7\n%fields | nfo:fileUrl | | x\n', /line 2: %fields has an empty field name/],
    ['%checkm_0.7\n%fields | nfo:fileUrl | A | a\n', /line 2: %fields names "a" twice/],
    [HEAD, /m: no entries/],
    [
      `${HEAD}http://e.org/a | 1 | md5 | ${'0'.repeat(32)} | extra\n`,
      /m line 3: 5 columns, but %fields names 4/,
    ],
    [`${HEAD}http://e.org/a | 12x\n`, /m line 3: nfo:fileSize "12x" is not a size in bytes/],
    [`${HEAD}http://e.org/a | 1 | crc32 | 1234\n`, /m line 3: unknown hash algorithm "crc32"/],
    [`${HEAD}http://e.org/a | 1 | sha256 | abc\n`, /m line 3: "abc" is not a sha256 value/],
    [`${HEAD}http://e.org/a | 1 | md5\n`, /line 3: nfo:hashAlgorithm without nfo:hashValue/],
    [`${HEAD}http://e.org/ok\n | 1\n`, /m line 4: empty nfo:fileUrl/],
    [`${HEAD}not a url | 1\n`, /m line 3: nfo:fileUrl "not a url" is not a URL/],
    [`${HEAD}%fields | nfo:fileUrl\n`, /m line 3: a second %fields line/],
  ])('refuses %j naming the line and the fault', (text, message) => {
    const err = parseError(text);
    expect(err.code).toBe('MANIFEST_INVALID');
    expect(err.message).toMatch(message);
  });

  it('gives the line number of the faulty entry', () => {
    expect(parseError(`${HEAD}http://e.org/a\n\n# c\nhttp://e.org/b | -1\n`).line).toBe(6);
  });
});

const KNOWN = [
  'nfo:hashAlgorithm',
  'nfo:hashValue',
  'nfo:fileSize',
  'nfo:fileLastModified',
  'nfo:fileName',
  'mrt:primaryIdentifier',
  'mrt:localIdentifier',
  'mrt:creator',
  'mrt:title',
  'mrt:date',
];
const HEX = { md5: 32, sha1: 40, sha256: 64, sha512: 128 } as const;

/** Text checkm can carry: no "|" or line breaks, no outer spaces, not starting a comment or directive. */
const cell = fc
  .string({ maxLength: 30, unit: 'grapheme' })
  .filter((s) => !/[|\r\n]/.test(s) && s === s.trim() && !/^[#%]/.test(s));

const fieldsArb = fc
  .tuple(fc.shuffledSubarray(KNOWN), fc.uniqueArray(fc.stringMatching(/^x:[a-z]{1,8}$/), { maxLength: 2 }))
  .chain(([known, extra]) => fc.shuffledSubarray([...known, ...extra, 'nfo:fileUrl'], { minLength: 1 }))
  .filter((fields) => fields.includes('nfo:fileUrl'));

const hashArb = fc.option(
  fc.constantFrom(...(Object.keys(HEX) as (keyof typeof HEX)[])).chain((algorithm) =>
    fc
      .string({
        unit: fc.constantFrom(...'0123456789abcdef'),
        minLength: HEX[algorithm],
        maxLength: HEX[algorithm],
      })
      .map((value) => ({ algorithm, value })),
  ),
  { nil: undefined },
);

function rowArb(fields: string[]) {
  return fc
    .record({
      url: fc.webUrl().filter((u) => !/[|\s]/.test(u)),
      hash: hashArb,
      size: fc.option(fc.nat(), { nil: undefined }),
      texts: fc.array(cell, { minLength: fields.length, maxLength: fields.length }),
    })
    .map(({ url, hash, size, texts }) => {
      const row: Record<string, string> = {};
      const hashed = fields.includes('nfo:hashAlgorithm') && fields.includes('nfo:hashValue');
      fields.forEach((field, i) => {
        if (field === 'nfo:fileUrl') row[field] = url;
        else if (field === 'nfo:hashAlgorithm') row[field] = hashed && hash ? hash.algorithm : '';
        else if (field === 'nfo:hashValue') row[field] = hashed && hash ? hash.value : '';
        else if (field === 'nfo:fileSize') row[field] = size === undefined ? '' : String(size);
        else row[field] = texts[i] ?? '';
      });
      return row;
    });
}

const manifestArb = fieldsArb.chain((fields) =>
  fc.record({ fields: fc.constant(fields), rows: fc.array(rowArb(fields), { minLength: 1, maxLength: 8 }) }),
);

function isManifestErrorOrOk(text: string | Uint8Array): boolean {
  try {
    parseCheckm(text);
    return true;
  } catch (err) {
    return err instanceof ManifestError;
  }
}

describe('checkm properties', () => {
  it('a valid manifest round-trips: serialize then parse gives the same entries', () => {
    fc.assert(
      fc.property(manifestArb, ({ fields, rows }) => {
        const parsed = parseCheckm(serializeCheckm(fields, rows));
        expect(parsed.fields).toEqual(fields);
        expect(parsed.entries.map((e) => e.values)).toEqual(rows);
        parsed.entries.forEach((entry, i) => {
          const row = rows[i] ?? {};
          expect(entry.line).toBe(i + 3);
          expect(entry.fileUrl).toBe(row['nfo:fileUrl']);
          expect(entry.fileSize).toBe(row['nfo:fileSize'] ? Number(row['nfo:fileSize']) : undefined);
          expect(entry.digest?.value).toBe(row['nfo:hashValue'] || undefined);
          expect(entry.title).toBe(row['mrt:title'] || undefined);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary strings and bytes parse or throw a ManifestError, never anything else', () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), isManifestErrorOrOk), { numRuns: 500 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), isManifestErrorOrOk), { numRuns: 500 });
  });

  it('lines mixed from manifest fragments parse or throw a ManifestError', () => {
    const fragment = fc.constantFrom(
      '%checkm_0.7',
      '%fields | nfo:fileUrl | nfo:fileSize | nfo:hashAlgorithm | nfo:hashValue | nfo:fileName',
      '%fields |',
      '%eof',
      '#',
      '',
      '|',
      'http://e.org/a | 1 | md5 | 0123456789abcdef0123456789abcdef | a',
      'http://e.org/a | x | sha-256 | zz',
      'file:///tmp/x | 99999999999999999999 | | | ../x',
      ' | | | | | | | ',
      '%profile',
    );
    const text = fc
      .tuple(
        fc.array(fc.oneof(fragment, fc.string({ maxLength: 20 })), { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n', '\r'),
      )
      .map(([lines, eol]) => ['%checkm_0.7', ...lines].join(eol));
    fc.assert(fc.property(text, isManifestErrorOrOk), { numRuns: 1000 });
  });
});
