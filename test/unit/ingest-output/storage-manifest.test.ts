import { describe, expect, it } from 'vitest';
import {
  formatStorageManifest,
  parseStorageManifest,
  sameEntries,
  type ManifestEntry,
} from '../../../src/steps/formats/storage-manifest.js';

const entries: ManifestEntry[] = [
  { path: 'system/mrt-erc.txt', size: 10, digest: { algorithm: 'sha256', value: 'ab'.repeat(32) } },
  { path: 'producer/b|c%d.txt', size: 3, digest: { algorithm: 'md5', value: 'cd'.repeat(16) } },
  { path: 'producer/a.txt', size: 0, digest: { algorithm: 'sha1', value: 'ef'.repeat(20) } },
];

describe('the storage manifest', () => {
  const text = formatStorageManifest(entries, (path) => `file:///store/${path}`);

  it('is checkm with the Merritt ingest-manifest header, sorted rows and an eof marker', () => {
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('#%checkm_0.7');
    expect(lines[4]).toBe(
      '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:mimeType',
    );
    expect(lines.at(-1)).toBe('#%eof');
    const names = lines.filter((l) => !l.startsWith('#%')).map((l) => l.split(' | ')[5]);
    expect(names).toEqual(['producer/a.txt', 'producer/b%7Cc%25d.txt', 'system/mrt-erc.txt']);
  });

  it('reads back the same entries, names with | and % included', () => {
    const back = parseStorageManifest(text);
    expect(sameEntries(back, entries)).toBe(true);
    expect(back.map((e) => e.path)).toContain('producer/b|c%d.txt');
  });

  it('keeps already percent-encoded URLs as they are, escaping only | and line breaks', () => {
    const one = [entries[0]!];
    const row = formatStorageManifest(one, () => 'http://h/a%20b|c').split('\n')[5]!;
    expect(row.startsWith('http://h/a%20b%7Cc | sha256 | ')).toBe(true);
  });

  it('does not depend on the order files are given in', () => {
    expect(formatStorageManifest([...entries].reverse(), (p) => `file:///store/${p}`)).toBe(text);
  });

  it('tells a changed size, digest or file set apart', () => {
    const changed = entries.map((e, i) =>
      i === 0 ? { ...e, digest: { ...e.digest, value: '00'.repeat(32) } } : e,
    );
    expect(sameEntries(changed, entries)).toBe(false);
    expect(sameEntries(entries.slice(1), entries)).toBe(false);
    expect(
      sameEntries(
        entries.map((e) => ({ ...e, size: e.size + 1 })),
        entries,
      ),
    ).toBe(false);
  });

  it('refuses a row that is not a file row', () => {
    expect(() => parseStorageManifest('#%checkm_0.7\nfile:///x | crc99 | 00 | 1 |  | x | \n')).toThrow(
      /line 2/,
    );
  });
});
