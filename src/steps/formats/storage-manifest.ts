import type { Digest, DigestAlgorithm } from '../ingest-contracts.js';
import { OutputError } from '../output-errors.js';
import { DIGEST_ALGORITHMS } from './digest.js';
import { OBJECT_MANIFEST_FIELDS } from './checkm.js';

/**
 * The storage manifest: a checkm file (Merritt's `mrt-ingest-manifest` profile) listing every
 * file of a version with its digest and size. Rows are sorted by file name and carry no
 * timestamps, so the same files always give the same manifest: that is what makes storing
 * idempotent (a re-run compares manifests instead of guessing).
 */

/** One file of an object version. */
export interface ManifestEntry {
  /** Path inside the version, e.g. `producer/a.tif` or `system/mrt-erc.txt`. */
  path: string;
  size: number;
  digest: Digest;
}

/** The columns of an object manifest, as mrt-core's `ManifestRowIngest` reads them. */
const MANIFEST_FIELDS = OBJECT_MANIFEST_FIELDS;

const HEADER = [
  '#%checkm_0.7',
  '#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest',
  '#%prefix | mrt: | http://merritt.cdlib.org/terms#',
  '#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
  `#%fields | ${MANIFEST_FIELDS.join(' | ')}`,
];

const ALGORITHMS: readonly DigestAlgorithm[] = DIGEST_ALGORITHMS;

const percent = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** `|` separates fields and a newline ends a row: both (and `%` itself) are percent-encoded. */
function encodeField(value: string): string {
  return value.replace(/[%|\r\n]/g, percent);
}

/** A URL is already percent-encoded: only `|` and line breaks are escaped, which keeps its meaning. */
function encodeUrl(value: string): string {
  return value.replace(/[|\r\n]/g, percent);
}

function decodeField(value: string): string {
  return value.replace(/%(25|7C|0D|0A)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Sorted by path, so the order files were downloaded in does not change the manifest. */
export function sortEntries<T extends ManifestEntry>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The manifest text; `urlOf` gives each file's URL (where the storage service fetches it). */
export function formatStorageManifest(
  entries: readonly ManifestEntry[],
  urlOf: (path: string) => string,
): string {
  const rows = sortEntries(entries).map((e) =>
    [
      encodeUrl(urlOf(e.path)),
      ...[e.digest.algorithm, e.digest.value, String(e.size), '', e.path, ''].map(encodeField),
    ].join(' | '),
  );
  return [...HEADER, ...rows, '#%eof', ''].join('\n');
}

/** A manifest row with the URL its file can be fetched from. */
export interface ManifestRow extends ManifestEntry {
  url: string;
}

function parseRow(line: string, lineNo: number): ManifestRow {
  const cells = line.split('|').map((cell) => decodeField(cell.trim()));
  const [url, algorithm, value, size, , path] = cells;
  const bytes = Number(size);
  if (!path || !value || !ALGORITHMS.includes(algorithm as DigestAlgorithm) || !Number.isSafeInteger(bytes)) {
    throw new OutputError('STORAGE_FAILED', `storage manifest line ${lineNo} is not a file row: ${line}`);
  }
  return {
    url: url ?? '',
    path,
    size: bytes,
    digest: { algorithm: algorithm as DigestAlgorithm, value: value.toLowerCase() },
  };
}

/** Reads back a manifest written by {@link formatStorageManifest}, each row with its file's URL. */
export function parseStorageManifest(text: string): ManifestRow[] {
  return text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), lineNo: index + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#%'))
    .map(({ line, lineNo }) => parseRow(line, lineNo));
}

/** Same files, sizes and digests (order and URLs aside). */
export function sameEntries(a: readonly ManifestEntry[], b: readonly ManifestEntry[]): boolean {
  if (a.length !== b.length) return false;
  const left = sortEntries(a);
  const right = sortEntries(b);
  return left.every((e, i) => {
    const o = right[i]!;
    return (
      e.path === o.path &&
      e.size === o.size &&
      e.digest.algorithm === o.digest.algorithm &&
      e.digest.value.toLowerCase() === o.digest.value.toLowerCase()
    );
  });
}
