import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BATCH_MANIFEST_FIELDS,
  type CheckmEntry,
  OBJECT_MANIFEST_FIELDS,
  parseCheckm,
  serializeCheckm,
} from '../../../src/steps/formats/checkm.js';
import { ManifestError } from '../../../src/steps/intake-errors.js';
import { formatHandOffManifest } from '../../../src/steps/services/handoff/manifest.js';
import { formatStorageManifest } from '../../../src/steps/formats/storage-manifest.js';

/** Where each file came from: test/fixtures/merritt-manifests/SOURCES.md. */
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'merritt-manifests');
const fixture = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');

const REGISTRY = 'http://uc3.cdlib.org/registry/ingest/manifest/';
const BATCH_FIELDS_AS_WRITTEN = [
  'nfo:fileUrl',
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

interface Expectation {
  file: string;
  profile: string;
  /** Each entry's expected properties, in order (toMatchObject). */
  entries: Partial<CheckmEntry>[];
}

const MERRITT_MANIFESTS: Expectation[] = [
  {
    // mrt-ingest ingest-it: SHA256 in capitals, an upper-case value, five empty cells after the last value.
    file: 'mrt-ingest/digest_batch.checkm',
    profile: `${REGISTRY}mrt-container-batch-manifest`,
    entries: [
      {
        line: 6,
        fileUrl: 'http://mock-merritt-it:4567/static/test_digest.zip',
        digest: {
          algorithm: 'sha256',
          value: '80a5b1dd2a8f7a28e817768f8db5ae9098e89d6330b4fd2c2ca3c600d1f97e59',
        },
        fileName: 'test_digest.zip',
      },
    ],
  },
  {
    file: 'mrt-ingest/localid_batch.checkm',
    profile: `${REGISTRY}mrt-container-batch-manifest`,
    entries: [
      {
        fileName: 'test_erc.zip',
        localIdentifier: 'localidfour;localidfour;localidfive;localidfive;localidsix',
      },
    ],
  },
  {
    file: 'mrt-ingest/localid2_batch.checkm',
    profile: `${REGISTRY}mrt-single-file-batch-manifest`,
    entries: [
      { fileName: 'hello.txt', localIdentifier: 'localidseven;localidseven;localideight;localidnine' },
    ],
  },
  {
    // No line break after its #%eof.
    file: 'mrt-ingest/mock_object.checkm',
    profile: `${REGISTRY}mrt-ingest-manifest`,
    entries: [{ line: 6, fileUrl: 'http://mock-merritt-it:4567/static/hello.txt', fileName: 'hello.txt' }],
  },
  {
    file: 'mrt-dashboard/4blocks.checkm',
    profile: `${REGISTRY}mrt-ingest-manifest`,
    entries: [
      {
        fileUrl: 'http://merritt.cdlib.org/samples/4blocks.jpg',
        digest: { algorithm: 'md5', value: '0b21c6d48e815dd537d42dc1cfac0111' },
        fileName: '4blocks.jpg',
      },
      { digest: { algorithm: 'md5', value: 'ed04a855f89f31f8dc8e9bb946f5f159' }, fileName: '4blocks.txt' },
    ],
  },
  {
    file: 'mrt-dashboard/bigHunt.checkm',
    profile: `${REGISTRY}mrt-ingest-manifest`,
    entries: [
      { fileSize: 76935, fileName: 'bigHunt2.jpg' },
      { fileSize: 55408, fileName: 'bigHunt3.jpg' },
      { line: 8, fileSize: 33, fileName: 'bigHunt.txt' },
    ],
  },
  {
    file: 'mrt-dashboard/call911.checkm',
    profile: `${REGISTRY}mrt-ingest-manifest`,
    entries: [
      { digest: { algorithm: 'md5', value: '47d321056e60944a06973793c7b5841e' }, fileSize: 87112 },
      { digest: { algorithm: 'md5', value: '77fe42b1055bbabe5164822823218f0a' }, fileSize: 46 },
    ],
  },
  {
    file: 'mrt-dashboard/sampleBatchOfManifests.checkm',
    profile: `${REGISTRY}mrt-batch-manifest`,
    entries: [
      {
        fileUrl: 'http://merritt.cdlib.org/samples/manifests/bigHunt.checkm',
        fileName: 'bigHunt.checkm',
        creator: 'Tracy Seneca',
        date: '2009-09-01T00:00:00',
      },
      { fileName: '4blocks.checkm', title: 'Motel Capri - manifest style' },
      { fileName: 'call911.checkm', title: 'If This Bell Rings Call 911 - manifest style' },
    ],
  },
  {
    // Rows with their trailing columns left out.
    file: 'mrt-dashboard/sampleBatchOfContainers.checkm',
    profile: `${REGISTRY}mrt-container-batch-manifest`,
    entries: [
      {
        fileName: 'huskyChicken.zip',
        creator: 'Tracy Seneca',
        title: 'Husky Chicken',
        date: '2009-09-01T00:00:00',
      },
      { fileName: 'outdoorStore.zip', title: 'The Outdoor Store, Portland OR' },
      { fileName: 'souvenirs.zip', creator: 'Tracy Seneca', title: 'SouvenirsLast Summer' },
    ],
  },
  {
    file: 'mrt-dashboard/sampleBatchOfFiles.checkm',
    profile: `${REGISTRY}mrt-single-file-batch-manifest`,
    entries: [
      {
        digest: { algorithm: 'md5', value: 'aa59e145dfb2237ecd8cb5ce4f4953ea' },
        title: 'Golden Dragon Restaurant Sign',
      },
      { fileName: 'tumbleBug.jpg', title: 'Tumble Bug, Luna Park.  Sydney' },
      { fileName: 'generalDrapery.jpg', title: 'General Drapery' },
    ],
  },
  {
    // #%profile without a bar, a URL's %2520 kept, a name's %20 decoded, #%EOF.
    file: 'mrt-dashboard/ucldc_collection_5551212-manifest-1.excerpt.checkm',
    profile: `${REGISTRY}mrt-ingest-manifest`,
    entries: [
      { fileName: 'nuxeo.cdlib.org/Merritt/365579cc-a369-45e7-8977-047bda3f7ed1.xml' },
      {
        fileName:
          's3.example.com/static.ucldc.example.edu/media_json/365579cc-a369-45e7-8977-047bda3f7ed1-media.json',
      },
      {
        fileUrl:
          'https://merritt:1212555@nuxeo.cdlib.org/Nuxeo/nxfile/default/365579cc-a369-45e7-8977-047bda3f7ed1/file:content/Merced%2520Army%2520Flying%2520School.pdf',
        fileName:
          'nuxeo.cdlib.org/Nuxeo/nxfile/default/365579cc-a369-45e7-8977-047bda3f7ed1/file:content/Merced Army Flying School.pdf',
        digest: { algorithm: 'md5', value: '5c66992caab03f795339b76dfa7974e2' },
      },
      {
        fileUrl: 'http://localhost:36301/2f6c0e1b9a',
        fileName: 'mrt-erc.txt',
        digest: { algorithm: 'md5', value: 'e1f57bda1e91e015a78347fd7ec5235e' },
      },
    ],
  },
  {
    // The Ruby client: #%profile without a bar, nil cells empty, a last empty mime column, an ERC component.
    file: 'mrt-ingest-ruby/iobject.checkm',
    profile: `${REGISTRY}mrt-ingest-manifest`,
    entries: [
      {
        fileName: 'hello.txt',
        fileSize: 14,
        digest: { algorithm: 'md5', value: '746308829575e17c3331bbcb00c0898b' },
      },
      { fileName: 'photo.tif', mimeType: 'image/tiff' },
      {
        fileName: 'scan.tif',
        digest: {
          algorithm: 'sha256',
          value: 'b43f1fbbae2df71ca4d5008da28db6c717dbecfc2ecec3c41770ead6b0bd4745',
        },
      },
      { line: 9, fileUrl: 'http://localhost:36301/2f6c0e', fileName: 'mrt-erc.txt' },
    ],
  },
];

describe("Merritt's own manifests", () => {
  it.each(MERRITT_MANIFESTS)('reads $file', ({ file, profile, entries }) => {
    const text = fixture(file);
    for (const variant of [text, text.replace(/\r?\n/g, '\r\n'), text.replace(/\r\n/g, '\n')]) {
      const manifest = parseCheckm(variant, file);
      expect(manifest.profile).toBe(profile);
      expect(manifest.entries).toHaveLength(entries.length);
      entries.forEach((expected, i) => expect(manifest.entries[i]).toMatchObject(expected));
    }
  });

  it('fills every field the manifest names, left-out and empty cells as ""', () => {
    const manifest = parseCheckm(fixture('mrt-dashboard/sampleBatchOfContainers.checkm'));
    expect(manifest.fields).toEqual(BATCH_FIELDS_AS_WRITTEN);
    expect(manifest.entries[1]?.values).toEqual({
      ...Object.fromEntries(BATCH_FIELDS_AS_WRITTEN.map((field) => [field, ''])),
      'nfo:fileUrl': 'http://merritt.cdlib.org/samples/outdoorStore.zip',
      'nfo:fileName': 'outdoorStore.zip',
      'mrt:title': 'The Outdoor Store, Portland OR',
    });
    expect(manifest.entries[1]?.creator).toBeUndefined();
    expect(manifest.entries[1]?.digest).toBeUndefined();
  });

  it("reads back the hand-off manifest Merritt's ingest writes (#%columns, nie:mimeType)", () => {
    const text = readFileSync(
      join(import.meta.dirname, '..', 'merritt-mode', 'fixtures', 'object1.checkm'),
      'utf8',
    );
    const manifest = parseCheckm(text, 'object1');
    expect(manifest.fields[0]).toBe('nfo:fileURL');
    expect(manifest.profile).toBe('http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest');
    expect(manifest.entries.length).toBeGreaterThan(0);
    for (const entry of manifest.entries) expect(entry.digest?.algorithm).toBe('sha256');
  });
});

describe('manifests this engine writes', () => {
  const sha = (c: string) => c.repeat(64);
  const files = [
    { path: 'producer/a b.txt', size: 3, digest: { algorithm: 'sha256' as const, value: sha('a') } },
    { path: 'system/mrt-erc.txt', size: 0, digest: { algorithm: 'md5' as const, value: 'b'.repeat(32) } },
  ];

  it('reads back the manifest.checkm the storage step writes', () => {
    const manifest = parseCheckm(formatStorageManifest(files, (path) => `http://e.org/${encodeURI(path)}`));
    expect(manifest.profile).toBe(`${REGISTRY}mrt-ingest-manifest`);
    expect(
      manifest.entries.map(({ fileUrl, fileName, fileSize, digest }) => ({
        fileUrl,
        fileName,
        fileSize,
        digest,
      })),
    ).toEqual([
      {
        fileUrl: 'http://e.org/producer/a%20b.txt',
        fileName: 'producer/a b.txt',
        fileSize: 3,
        digest: files[0]!.digest,
      },
      {
        fileUrl: 'http://e.org/system/mrt-erc.txt',
        fileName: 'system/mrt-erc.txt',
        fileSize: 0,
        digest: files[1]!.digest,
      },
    ]);
  });

  it('reads back the hand-off manifest, whose rows end at their last value', () => {
    const rows = files.map((file) => ({ ...file, url: `http://e.org/${file.path}` }));
    const manifest = parseCheckm(formatHandOffManifest([{ ...rows[0]!, mimeType: 'text/plain' }, rows[1]!]));
    expect(manifest.entries[0]).toMatchObject({
      fileName: 'producer/a b.txt',
      mimeType: 'text/plain',
      fileSize: 3,
    });
    // Checkm.getLine leaves a size of 0 out.
    expect(manifest.entries[1]?.fileName).toBe('system/mrt-erc.txt');
    expect(manifest.entries[1]?.fileSize).toBeUndefined();
  });
});

const OBJECT_HEAD = [
  '#%checkm_0.7',
  `#%profile | ${REGISTRY}mrt-ingest-manifest`,
  '#%prefix | mrt: | http://merritt.cdlib.org/terms#',
  '#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
  '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:mimeType',
].join('\n');
const MD5 = 'a'.repeat(32);
const object = (...rows: string[]) => `${OBJECT_HEAD}\n${rows.join('\n')}\n#%eof\n`;
const only = (text: string) => parseCheckm(text, 'm').entries[0]!;

describe('checkm lines as Merritt reads them', () => {
  it.each([
    ['#%profile | URL', `#%profile | ${REGISTRY}mrt-batch-manifest`],
    ['#%profile URL', `#%profile ${REGISTRY}mrt-batch-manifest`],
    ['#%profile|URL', `#%profile|${REGISTRY}mrt-batch-manifest  `],
    ['%profile | URL', `%profile | ${REGISTRY}mrt-batch-manifest`],
  ])('reads the profile written as %s', (_, line) => {
    const text = `#%checkm_0.7\n${line}\n#%fields | nfo:fileUrl\nhttp://e.org/a\n#%eof\n`;
    expect(parseCheckm(text).profile).toBe(`${REGISTRY}mrt-batch-manifest`);
  });

  it('keeps the first of two profiles, as Merritt does', () => {
    const text = `#%checkm_0.7\n#%profile | http://a/1\n#%profile | http://a/2\n#%fields | nfo:fileUrl\nhttp://e.org/a\n#%eof\n`;
    expect(parseCheckm(text).profile).toBe('http://a/1');
  });

  it.each(['#%eof', '#%EOF', '#%Eof', '%eof', '#%eof  '])('ends at %j', (eof) => {
    expect(parseCheckm(`${OBJECT_HEAD}\nhttp://e.org/a\n${eof}`).entries).toHaveLength(1);
  });

  it('allows blank lines after #%eof', () => {
    expect(parseCheckm(`${OBJECT_HEAD}\nhttp://e.org/a\n#%eof\n\n\r\n`).entries).toHaveLength(1);
  });

  it('reads the bare %-form this engine wrote before, without %eof', () => {
    const text = '%checkm_0.7\n%fields | nfo:fileUrl | mrt:title\nhttp://e.org/a | A\n';
    expect(parseCheckm(text).entries[0]).toMatchObject({ fileUrl: 'http://e.org/a', title: 'A' });
  });

  it('reads #%columns, field names in any case, and nie:mimeType', () => {
    const text =
      '#%checkm_0.7\n#%profile | http://p\n#%columns | NFO:FILEURL | nfo:HashAlgorithm | nfo:hashvalue | nie:mimeType\n' +
      `http://e.org/a | MD5 | ${MD5} | text/plain\n#%eof\n`;
    expect(only(text)).toMatchObject({ digest: { algorithm: 'md5', value: MD5 }, mimeType: 'text/plain' });
  });

  it('skips comments, blank lines, #%prefix and unknown directives before the entries', () => {
    const text = `${OBJECT_HEAD}\n# a comment\n\n   \n#%prefix | x: | http://x#\n#%note whatever\nhttp://e.org/a\n#%eof\n`;
    expect(only(text).line).toBe(11);
  });

  it('drops trailing empty cells beyond the fields, as Java split does', () => {
    const entry = only(object(`http://e.org/a | md5 | ${MD5} | 5 |  | a.txt | text/plain | | |  |`));
    expect(entry).toMatchObject({ fileSize: 5, fileName: 'a.txt', mimeType: 'text/plain' });
  });

  it('decodes %20 and %7c (either case) in values, but not in the URL', () => {
    const entry = only(object('http://e.org/a%20b%7cc | | | | | %20a%7cb%7Cc%20 | x%2520'));
    expect(entry.fileUrl).toBe('http://e.org/a%20b%7cc');
    expect(entry.fileName).toBe(' a|b|c ');
    expect(entry.mimeType).toBe('x%2520');
    expect(entry.values['nfo:fileName']).toBe(' a|b|c ');
  });

  it('reads digest names in any spelling and keeps values in lower case', () => {
    const rows = [
      `http://e.org/1 | SHA-256 | ${'AB'.repeat(32)}`,
      `http://e.org/2 | sha-1 | ${'c'.repeat(40)}`,
      'http://e.org/3 | CRC32 | 0A1B2C3D',
      'http://e.org/4 | adler-32 | 00000001',
      `http://e.org/5 | sha384 | ${'d'.repeat(96)}`,
    ];
    expect(parseCheckm(object(...rows)).entries.map((e) => e.digest)).toEqual([
      { algorithm: 'sha256', value: 'ab'.repeat(32) },
      { algorithm: 'sha1', value: 'c'.repeat(40) },
      { algorithm: 'crc32', value: '0a1b2c3d' },
      { algorithm: 'adler32', value: '00000001' },
      { algorithm: 'sha384', value: 'd'.repeat(96) },
    ]);
  });

  it('ignores an algorithm without a value (and a value without an algorithm), as Merritt does', () => {
    const entries = parseCheckm(
      object('http://e.org/a | md5', `http://e.org/b |  | ${MD5}`, 'http://e.org/c | crc99'),
    ).entries;
    expect(entries.map((e) => e.digest)).toEqual([undefined, undefined, undefined]);
    expect(entries[0]?.values['nfo:hashAlgorithm']).toBe('md5');
  });

  it("reads by Merritt's columns for the profile when there is no #%fields line", () => {
    const object1 = parseCheckm(
      `#%checkm_0.7\n#%profile | ${REGISTRY}mrt-ingest-manifest\nhttp://e.org/a | | | 3 | | a | text/plain\n#%eof\n`,
    );
    expect(object1.fields).toEqual(OBJECT_MANIFEST_FIELDS);
    expect(object1.entries[0]).toMatchObject({ fileSize: 3, fileName: 'a', mimeType: 'text/plain' });
    const batch = parseCheckm(
      `#%checkm_0.7\n#%profile ${REGISTRY}mrt-batch-manifest\nhttp://e.org/m | | | | | m | ark:/1/x | L | Ann | T | 2024\n#%eof\n`,
    );
    expect(batch.fields).toEqual(BATCH_MANIFEST_FIELDS);
    expect(batch.entries[0]).toMatchObject({
      primaryIdentifier: 'ark:/1/x',
      localIdentifier: 'L',
      creator: 'Ann',
      title: 'T',
      date: '2024',
    });
  });

  it('reads the mrt: fields of a batch manifest and accepts a BOM', () => {
    const text =
      '\uFEFF#%checkm_0.7\n#%fields | nfo:fileUrl | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n' +
      'http://e.org/m1.checkm | ark:/1/x | loc-1 | Ann | A title | 2024\n#%eof\n';
    expect(parseCheckm(text).entries[0]).toMatchObject({
      primaryIdentifier: 'ark:/1/x',
      localIdentifier: 'loc-1',
      creator: 'Ann',
      title: 'A title',
      date: '2024',
    });
  });
});

function parseError(text: string): ManifestError {
  try {
    parseCheckm(text, 'm');
  } catch (err) {
    expect(err).toBeInstanceOf(ManifestError);
    return err as ManifestError;
  }
  throw new Error('expected a ManifestError');
}

const HEAD = '#%checkm_0.7\n#%fields | nfo:fileUrl | nfo:fileSize | nfo:hashAlgorithm | nfo:hashValue\n';

describe('what Merritt (or this engine) refuses', () => {
  it.each([
    ['', /m line 1: the manifest is empty/],
    ['hello\n', /m line 1: expected the header #%checkm_0.7, found "hello"/],
    ['\n\n#%profile | x\n', /m line 3: expected the header #%checkm_0.7/],
    [`${HEAD}http://e.org/a\n`, /m: no #%eof line at the end/],
    [`${HEAD}http://e.org/a\n#%eof\nhttp://e.org/b\n`, /m line 5: "http:\/\/e.org\/b" after #%eof/],
    [`${HEAD}http://e.org/a\n#%eof\n# note\n`, /m line 5: "# note" after #%eof/],
    [`${HEAD}http://e.org/a\n#%fields | nfo:fileUrl\n#%eof\n`, /m line 4: #%fields among the entries/],
    [
      `${HEAD}http://e.org/a\n#%profile | x\nhttp://e.org/b\n#%eof\n`,
      /m line 4: #%profile among the entries/,
    ],
    ['#%checkm_0.7\n#%profile\n#%eof\n', /m line 2: #%profile names no profile/],
    ['#%checkm_0.7\n# nothing\n#%eof\n', /m: no entries/],
    [`${HEAD}#%eof\n`, /m: no entries/],
    ['#%checkm_0.7\n#%fields | nfo:fileName\nx\n#%eof\n', /m line 2: #%fields has no nfo:fileUrl/],
    ['#%checkm_0.7\n#%fields | nfo:fileUrl | | x\n', /line 2: #%fields has an empty field name/],
    ['#%checkm_0.7\n#%columns | nfo:fileUrl | A | a\n', /line 2: #%columns names "a" twice/],
    [
      '#%checkm_0.7\n#%fields | nfo:fileUrl\n#%columns | nfo:fileUrl\n',
      /line 3: a second field list \(#%columns\)/,
    ],
    [
      `${HEAD}http://e.org/a | 1 | md5 | ${'0'.repeat(32)} | extra\n#%eof\n`,
      /m line 3: 5 columns, but #%fields names 4/,
    ],
    [
      `#%checkm_0.7\n#%profile | ${REGISTRY}mrt-ingest-manifest\nhttp://e.org/a | | | | | a | t | x\n#%eof\n`,
      /m line 3: 8 columns, but Merritt's object manifest columns \(there is no #%fields line\) names 7/,
    ],
    [`${HEAD}http://e.org/a | 12x\n#%eof\n`, /m line 3: nfo:fileSize "12x" is not a size in bytes/],
    [`${HEAD}http://e.org/a | 1 | crc99 | 1234\n#%eof\n`, /m line 3: unknown hash algorithm "crc99"/],
    [
      `${HEAD}http://e.org/a | 1 | MD2 | 1234\n#%eof\n`,
      /m line 3: unsupported hash algorithm "MD2" \(this engine cannot compute md2/,
    ],
    [`${HEAD}http://e.org/a | 1 | sha256 | abc\n#%eof\n`, /m line 3: "abc" is not a sha256 value/],
    [
      `${HEAD}http://e.org/a | 1 | crc32 | 1b2c3d\n#%eof\n`,
      /"1b2c3d" is not a crc32 value \(8 hex digits, leading zeros kept\)/,
    ],
    [`${HEAD}http://e.org/ok\n | 1\n#%eof\n`, /m line 4: empty nfo:fileUrl/],
    [`${HEAD}not a url | 1\n#%eof\n`, /m line 3: nfo:fileUrl "not a url" is not a URL/],
  ])('refuses %j naming the line and the fault', (text, message) => {
    const err = parseError(text);
    expect(err.code).toBe('MANIFEST_INVALID');
    expect(err.message).toMatch(message);
  });

  it('gives the line number of the faulty entry, CRLF or not', () => {
    const text = `${HEAD}http://e.org/a\n\n# c\nhttp://e.org/b | -1\n#%eof\n`;
    expect(parseError(text).line).toBe(6);
    expect(parseError(text.replace(/\n/g, '\r\n')).line).toBe(6);
  });
});

describe('writing checkm', () => {
  it("writes Merritt's form: header, profile, prefixes, fields, rows as Checkm.getLine, #%eof", () => {
    const text = serializeCheckm(
      ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName', 'mrt:title'],
      [
        {
          'nfo:fileUrl': 'http://e.org/a',
          'nfo:hashAlgorithm': 'md5',
          'nfo:hashValue': MD5,
          'nfo:fileName': 'a|b ',
        },
        { 'nfo:fileUrl': 'http://e.org/x|y', 'mrt:title': ' T ' },
      ],
      { profile: `${REGISTRY}mrt-ingest-manifest` },
    );
    expect(text).toBe(
      [
        '#%checkm_0.7',
        `#%profile | ${REGISTRY}mrt-ingest-manifest`,
        '#%prefix | mrt: | http://merritt.cdlib.org/terms#',
        '#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
        '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileName | mrt:title',
        `http://e.org/a | md5 | ${MD5} |  | a%7cb%20`,
        'http://e.org/x%7cy |  |  |  |  | %20T%20',
        '#%eof',
        '',
      ].join('\n'),
    );
    const [a, x] = parseCheckm(text).entries;
    expect(a?.fileName).toBe('a|b ');
    expect(x?.title).toBe(' T ');
  });

  it("leaves a URL's own percent-encoding alone, both ways", () => {
    const url = 'http://e.org/c%20d%7Ce%25f';
    const text = serializeCheckm(['nfo:fileUrl'], [{ 'nfo:fileUrl': url }]);
    expect(text).toContain(`\n${url}\n`);
    expect(parseCheckm(text).entries[0]?.fileUrl).toBe(url);
  });

  it.each([
    [
      'a line break',
      { 'nfo:fileUrl': 'http://e.org/a', 'mrt:title': 'a\nb' },
      /mrt:title "a\\nb" holds a line break/,
    ],
    [
      'a literal %20',
      { 'nfo:fileUrl': 'http://e.org/a', 'mrt:title': '100%20' },
      /"%20", which the reader decodes/,
    ],
    [
      'a tab at an end',
      { 'nfo:fileUrl': 'http://e.org/a', 'mrt:title': 'a\t' },
      /a tab or form feed at an end/,
    ],
    [
      'blanks around a URL',
      { 'nfo:fileUrl': ' http://e.org/a' },
      /nfo:fileUrl " http:\/\/e.org\/a" has blanks at an end or a line break/,
    ],
    ['an empty row', {}, /a row with no values/],
  ])('refuses text Merritt cannot read back: %s', (_, row, message) => {
    expect(() => serializeCheckm(['nfo:fileUrl', 'mrt:title'], [row])).toThrow(message);
  });

  it('refuses a row whose first cell would read as a comment or directive', () => {
    expect(() =>
      serializeCheckm(['mrt:title', 'nfo:fileUrl'], [{ 'mrt:title': ' x', 'nfo:fileUrl': 'http://e' }]),
    ).toThrow(/would start with "%"/);
    expect(() => serializeCheckm(['mrt:title', 'nfo:fileUrl'], [{ 'mrt:title': '#x' }])).toThrow(
      /would start with "#"/,
    );
  });

  it('refuses field lists parseCheckm would refuse', () => {
    expect(() => serializeCheckm(['mrt:title'], [])).toThrow(/#%fields has no nfo:fileUrl/);
    expect(() => serializeCheckm(['nfo:fileUrl', 'a b'], [])).toThrow(/field name "a b"/);
  });
});

const KNOWN = [
  'nfo:hashAlgorithm',
  'nfo:hashValue',
  'nfo:fileSize',
  'nfo:fileLastModified',
  'nfo:fileName',
  'mrt:mimeType',
  'mrt:primaryIdentifier',
  'mrt:localIdentifier',
  'mrt:creator',
  'mrt:title',
  'mrt:date',
];
const HEX = { md5: 32, sha1: 40, sha256: 64, sha384: 96, sha512: 128, crc32: 8, adler32: 8 } as const;

/** Text a cell can carry once encoded: no line break, no tab at an end, no literal %20 or %7c. */
const cell = fc
  .string({
    maxLength: 30,
    unit: fc.oneof(
      fc.constantFrom(' ', '|', '%', '2', '0', '7', 'c', 'C'),
      fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
    ),
  })
  .filter((s) => !/[\r\n]/.test(s) && !/^[\t\v\f]|[\t\v\f]$/.test(s) && !/%(20|7c|7C)/.test(s));

/** A first column's text must not start a comment or directive once encoded (a blank or | becomes %…). */
const firstCell = cell.filter((s) => !/^[ #%|]/.test(s));

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
      texts: fc.tuple(...fields.map((_, i) => (i === 0 ? firstCell : cell))),
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
  fc.record({
    fields: fc.constant(fields),
    rows: fc.array(rowArb(fields), { minLength: 1, maxLength: 8 }),
    profile: fc.option(fc.constantFrom(`${REGISTRY}mrt-ingest-manifest`, `${REGISTRY}mrt-batch-manifest`), {
      nil: undefined,
    }),
  }),
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
  // Hundreds of generated manifests: slow on a loaded machine, hence the longer timeout.
  it('every manifest serializeCheckm writes parses back to the same fields, profile and values', () => {
    fc.assert(
      fc.property(manifestArb, ({ fields, rows, profile }) => {
        const text = serializeCheckm(fields, rows, profile ? { profile } : {});
        const lines = text.split('\n');
        const parsed = parseCheckm(text);
        expect(parsed.fields).toEqual(fields);
        expect(parsed.profile).toBe(profile);
        expect(parsed.entries.map((e) => e.values)).toEqual(rows);
        parsed.entries.forEach((entry, i) => {
          const row = rows[i] ?? {};
          expect(entry.line).toBe(lines.findIndex((l) => l.startsWith('#%fields')) + 2 + i);
          expect(entry.fileUrl).toBe(row['nfo:fileUrl']);
          expect(entry.fileSize).toBe(row['nfo:fileSize'] ? Number(row['nfo:fileSize']) : undefined);
          expect(entry.digest?.value).toBe(row['nfo:hashValue'] || undefined);
          expect(entry.title).toBe(row['mrt:title'] || undefined);
        });
        // CRLF is read the same.
        expect(parseCheckm(text.replace(/\n/g, '\r\n')).entries.map((e) => e.values)).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  }, 30_000);

  it('arbitrary strings and bytes parse or throw a ManifestError, never anything else', () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), isManifestErrorOrOk), { numRuns: 500 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), isManifestErrorOrOk), { numRuns: 500 });
  });

  it('lines mixed from manifest fragments parse or throw a ManifestError', () => {
    const fragment = fc.constantFrom(
      '#%checkm_0.7',
      '%checkm_0.7',
      '#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-batch-manifest',
      '#%profile',
      '#%fields | nfo:fileUrl | nfo:fileSize | nfo:hashAlgorithm | nfo:hashValue | nfo:fileName',
      '#%columns | nfo:fileURL',
      '#%fields |',
      '#%eof',
      '%EOF',
      '#',
      '#%',
      '',
      '|',
      'http://e.org/a | 1 | md5 | 0123456789abcdef0123456789abcdef | a%7c%20',
      'http://e.org/a | x | sha-256 | zz',
      'http://e.org/a | 1 | crc32 | 0000000f | | | | |',
      'file:///tmp/x | 99999999999999999999 | | | ../x',
      ' | | | | | | | ',
      '\u2028%profile\u2028',
    );
    const text = fc
      .tuple(
        fc.array(fc.oneof(fragment, fc.string({ maxLength: 20 })), { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n', '\r'),
      )
      .map(([lines, eol]) => ['#%checkm_0.7', ...lines].join(eol));
    fc.assert(fc.property(text, isManifestErrorOrOk), { numRuns: 1000 });
  });
});
