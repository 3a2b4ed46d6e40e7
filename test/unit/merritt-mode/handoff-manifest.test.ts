import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestQueueUrl } from '../../../src/steps/services/handoff/handoff.js';
import {
  formatHandOffManifest,
  parseHandOffManifest,
  type HandOffRow,
} from '../../../src/steps/services/handoff/manifest.js';
import { mimeTypeOf } from '../../../src/steps/services/handoff/mime.js';
import { isOutputError } from '../../../src/steps/output-errors.js';

// merritt-protocols.md §1 (d): the manifest ingest hands to storage, in Merritt's mrt-add-manifest
// format (mrt-core2 ManifestBuild.getPostManifest, Checkm.getLine; mrt-ingest HandlerDigest).

/**
 * Merritt's own sample, byte for byte: CDLUC3/mrt-store at 262d019648cd2828d2eb2ce33428bf95ffcb85b2,
 * store-it/src/test/resources/object1.checkm (written by hand for mrt-store's tests, hence its dates).
 */
const OBJECT1 = readFileSync(join(import.meta.dirname, 'fixtures', 'object1.checkm'), 'utf8');

const HELLO = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const BASE = 'http://ingest.example.org:33121/ingestqueue/bid-1/jid-1';

const row = (path: string, value: string, size: number, mimeType?: string): HandOffRow => ({
  url: `${BASE}/${path}`,
  path,
  size,
  digest: { algorithm: 'sha256', value },
  ...(mimeType ? { mimeType } : {}),
});

describe("the hand-off manifest, written as Merritt's ingest writes it (merritt-protocols.md §1 (d))", () => {
  it('has the mrt-add-manifest header, one line per file with an empty date, and #%eof, every line ending in a newline', () => {
    const text = formatHandOffManifest([
      row('producer/hello.txt', HELLO, 5, 'text/plain'),
      row('producer/empty.txt', EMPTY, 0, 'text/plain'),
      row('system/mrt-erc.txt', 'ab'.repeat(32), 93, 'text/plain'),
    ]);
    expect(text).toBe(
      '#%checkm_0.7\n' +
        '#%profile | http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest\n' +
        '#%prefix | nfo:<http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#>\n' +
        '#%prefix | nie:<http://www.semanticdesktop.org/ontologies/2007/01/19/nie/#>\n' +
        '#%prefix | mrt:<http://uc3.cdlib.org/ontology/mrt/mom#>\n' +
        '#%columns | nfo:fileURL | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | nie:mimeType\n' +
        `${BASE}/producer/hello.txt | sha256 | ${HELLO} | 5 |  | producer/hello.txt | text/plain\n` +
        `${BASE}/producer/empty.txt | sha256 | ${EMPTY} |  |  | producer/empty.txt | text/plain\n` +
        `${BASE}/system/mrt-erc.txt | sha256 | ${'ab'.repeat(32)} | 93 |  | system/mrt-erc.txt | text/plain\n` +
        '#%eof\n',
    );
  });

  it("matches mrt-core2's ManifestBuildTest line: Java-encoded URL segments, the name as it is, no MIME column when none", () => {
    const path = 'abc,def/ghi+jkl=m/abcdefg[jklm]nop.txt';
    const url = ingestQueueUrl('http://myserve:350/store', '', path).replace('/ingestqueue', '');
    const value = '4f1c93ade2c34db17882aa285e49c52d057f0a6b200bab260f9e455747fa2281';
    const text = formatHandOffManifest([{ url, path, size: 26, digest: { algorithm: 'sha256', value } }]);
    expect(text.split('\n')[6]).toBe(
      'http://myserve:350/store/abc%2Cdef/ghi%2Bjkl%3Dm/abcdefg%5Bjklm%5Dnop.txt | sha256 | ' +
        '4f1c93ade2c34db17882aa285e49c52d057f0a6b200bab260f9e455747fa2281 | 26 |  | abc,def/ghi+jkl=m/abcdefg[jklm]nop.txt',
    );
    // A space is %20 (Java's "+" is not decoded in a path by any web server); ! ' ( ) ~ as Java.
    expect(ingestQueueUrl('http://h', 'b/j', "producer/a b!'()~*.txt")).toBe(
      'http://h/ingestqueue/b/j/producer/a%20b%21%27%28%29%7E*.txt',
    );
  });

  it('escapes | and an outer blank as Checkm.enc does, and reads them back', () => {
    const odd = { ...row('producer/x', HELLO, 5, 'text/plain'), path: ' producer/a|b ' };
    const line = formatHandOffManifest([odd]).split('\n')[6]!;
    expect(line).toBe(`${BASE}/producer/x | sha256 | ${HELLO} | 5 |  | %20producer/a%7cb%20 | text/plain`);
    expect(parseHandOffManifest(formatHandOffManifest([odd]))).toEqual([odd]);
  });
});

describe('the hand-off manifest, read as mrt-store reads it', () => {
  it("reads Merritt's own object1.checkm, and writes its rows back to the same bytes", () => {
    const rows = parseHandOffManifest(OBJECT1);
    expect(rows.map((r) => r.path)).toEqual([
      'producer/mrt-dc.xml',
      'system/mrt-owner.txt',
      'system/mrt-erc.txt',
      'system/mrt-mom.txt',
      'system/mrt-ingest.txt',
      'system/mrt-membership.txt',
      'producer/hello.txt',
    ]);
    expect(rows.at(-1)).toEqual({
      url: 'http://mock-merritt-it:4567/storage-input/producer/hello.txt',
      path: 'producer/hello.txt',
      size: 5,
      digest: { algorithm: 'sha256', value: HELLO },
      lastModified: '2017-10-03T15:29:19-07:00',
      mimeType: 'text/plain',
    });
    expect(rows[0]!.mimeType).toBe('application/xml');
    expect(formatHandOffManifest(rows)).toBe(OBJECT1);
  });

  it('takes SHA-256 for sha256, an empty size for 0, and skips blank and # comment lines', () => {
    const text = OBJECT1.replace(' | sha256 | 2cf24d', ' | SHA-256 | 2cf24d').replace(
      '#%eof',
      '\n# a comment\n   \n#%eof',
    );
    expect(parseHandOffManifest(text).at(-1)!.digest.algorithm).toBe('sha256');
    const empty = formatHandOffManifest([row('producer/empty.txt', EMPTY, 0, 'text/plain')]);
    expect(parseHandOffManifest(empty)[0]!.size).toBe(0);
  });

  const refusal = (text: string): string => {
    try {
      parseHandOffManifest(text);
    } catch (err) {
      expect(isOutputError(err, 'HANDOFF_INVALID')).toBe(true);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it('refuses what mrt-store refuses, saying what is wrong', () => {
    expect(refusal(OBJECT1.replace('#%eof\n', ''))).toMatch(/does not end with #%eof/);
    expect(refusal(`${OBJECT1}\n`)).toMatch(/does not end with #%eof/);
    expect(refusal('')).toMatch(/empty/);
    const internal = OBJECT1.replace(
      'store/manifest/mrt-add-manifest',
      'ingest/manifest/mrt-ingest-manifest',
    );
    expect(refusal(internal)).toMatch(/mrt-ingest-manifest, not Merritt's .*requeue the job from processing/);
    expect(refusal(OBJECT1.replace(' | sha256 | 2cf24d', ' | crc99 | 2cf24d'))).toMatch(
      /line 13: digest algorithm "crc99"/,
    );
    expect(refusal(OBJECT1.replace(' | 5 | 2017', ' | five | 2017'))).toMatch(/line 13: file size "five"/);
    expect(refusal(OBJECT1.replace(' | producer/hello.txt | text/plain', ''))).toMatch(/line 13 needs/);
  });
});

describe('the MIME type of a hand-off row (Tika, as mrt-core2 asks it)', () => {
  const text = Buffer.from('hello\n');
  it('gives the types Merritt gives the usual files', () => {
    expect(mimeTypeOf('producer/hello.txt', text)).toBe('text/plain');
    expect(mimeTypeOf('system/mrt-dc.xml', Buffer.from('<?xml version="1.0"?><dc/>'))).toBe(
      'application/xml',
    );
    expect(mimeTypeOf('producer/empty.txt', Buffer.alloc(0))).toBe('text/plain');
    expect(mimeTypeOf('producer/table.csv', Buffer.from('a,b\n1,2\n'))).toBe('text/csv');
    expect(mimeTypeOf('producer/README', text)).toBe('text/plain');
    expect(mimeTypeOf('producer/data.bin', Buffer.from([0, 1, 2, 255]))).toBe('application/octet-stream');
    expect(mimeTypeOf('producer/noext', Buffer.from([0, 1, 2, 255]))).toBe('application/octet-stream');
  });

  it("uses mrt-core2's suffix table first, then magic bytes over a name that disagrees", () => {
    expect(mimeTypeOf('producer/a.TAR.GZ', text)).toBe('application/x-gtar');
    expect(mimeTypeOf('producer/data.ttl', text)).toBe('plain/turtle');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(mimeTypeOf('producer/photo.jpg', png)).toBe('image/png');
    expect(mimeTypeOf('producer/photo.jpg', text)).toBe('text/plain');
    expect(mimeTypeOf('producer/scan.tif', Buffer.from([0x49, 0x49, 0x2a, 0x00, 8]))).toBe('image/tiff');
  });
});
