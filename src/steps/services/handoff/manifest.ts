import type { DigestAlgorithm } from '../../ingest-contracts.js';
import { OutputError } from '../../output-errors.js';
import type { ManifestRow } from '../../formats/storage-manifest.js';
import { DIGEST_ALGORITHMS } from '../../formats/digest.js';

/**
 * The manifest processing hands to storage (merritt-protocols.md §1 (d)): Merritt's
 * `mrt-add-manifest` checkm as its ingest writes it (`HandlerDigest` through mrt-core's
 * `ManifestBuild.getPostManifest`: `Checkm.getLine` per file, `#%eof`, then every line rewritten
 * with a newline by `FileUtil.removeLineFromFile`) and as mrt-store reads it (`Manifest` with
 * `ManifestRowAdd`). ManifestBuild sets no date on a file, so `nfo:fileLastModified` is empty and
 * the same files always give the same bytes.
 */

export const ADD_MANIFEST_PROFILE = 'http://uc3.cdlib.org/registry/store/manifest/mrt-add-manifest';

/** The profiles `ManifestRowAdd` accepts; the first is the one it writes. */
const PROFILES = [ADD_MANIFEST_PROFILE, 'http://uc3.cdlib.org/registry/mrt/mrt-add-manifest'];

/** `ManifestRowAdd`'s header lines, byte for byte (nie's namespace URL is Merritt's, odd slash included). */
export const ADD_MANIFEST_HEADER: readonly string[] = [
  '#%checkm_0.7',
  `#%profile | ${ADD_MANIFEST_PROFILE}`,
  '#%prefix | nfo:<http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#>',
  '#%prefix | nie:<http://www.semanticdesktop.org/ontologies/2007/01/19/nie/#>',
  '#%prefix | mrt:<http://uc3.cdlib.org/ontology/mrt/mom#>',
  '#%columns | nfo:fileURL | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | nie:mimeType',
];

/** One file of the hand-off: where storage fetches it, its digest and size, its name in the object. */
export interface HandOffRow extends ManifestRow {
  /** `nie:mimeType` (Tika's type in Merritt); the column is left out when absent. */
  mimeType?: string;
  /** `nfo:fileLastModified` as written (ISO 8601); Merritt's ingest leaves it empty. */
  lastModified?: string;
}

/** Checkm's `enc`: a leading or trailing blank becomes `%20`, every `|` becomes `%7c`. */
function enc(value: string): string {
  let out = value;
  if (out.startsWith(' ')) out = `%20${out.slice(1)}`;
  if (out.endsWith(' ')) out = `${out.slice(0, -1)}%20`;
  return out.replaceAll('|', '%7c');
}

/** Checkm's `dec`: `%20` and `%7c` (lower case only) back; nothing else is decoded. */
function dec(value: string): string {
  return value.replaceAll('%20', ' ').replaceAll('%7c', '|');
}

/**
 * A row as `Checkm.getLine` writes it: cells joined by ` | `, a size of 0 and a missing date
 * left empty, the line ending at the last cell that has a value.
 */
function formatRow(row: HandOffRow): string {
  const cells = [
    row.url,
    row.digest.algorithm,
    row.digest.value,
    row.size > 0 ? String(row.size) : '',
    row.lastModified ?? '',
    row.path,
    row.mimeType ?? '',
  ];
  while (cells.length > 0 && cells.at(-1) === '') cells.pop();
  return cells.map(enc).join(' | ');
}

/** The manifest's text: the header, one line per row in the order given, `#%eof`, each line ending in `\n`. */
export function formatHandOffManifest(rows: readonly HandOffRow[]): string {
  return [...ADD_MANIFEST_HEADER, ...rows.map(formatRow), '#%eof'].map((line) => `${line}\n`).join('');
}

const ALGORITHMS: readonly DigestAlgorithm[] = DIGEST_ALGORITHMS;

function invalid(message: string): OutputError {
  return new OutputError('HANDOFF_INVALID', message);
}

/** `Checkm.squeezeHeader`: what follows `#%profile`, blanks and bars skipped. */
function profileOf(header: string): string {
  return header.slice('#%profile '.length).replace(/^[ |]*/, '');
}

/** `Checkm.handleHeaders`: the headers before the first row must name the add-manifest profile. */
function checkProfile(headers: readonly string[]): void {
  if (headers.length === 0) return;
  const header = headers.find((line) => line.startsWith('#%profile '));
  if (!header) throw invalid('it has no #%profile header');
  const profile = profileOf(header);
  const squeeze = (s: string) => s.replace(/\s+/g, '');
  if (!PROFILES.some((allowed) => squeeze(allowed) === squeeze(profile)))
    throw invalid(
      `its profile is ${profile}, not Merritt's ${ADD_MANIFEST_PROFILE} ` +
        '(a manifest written by an older version of this engine?); requeue the job from processing to write it again',
    );
}

/** `MessageDigestValue.getAlgorithm`: lower case, `-` removed (`SHA-256` is `sha256`). */
function algorithmOf(name: string, lineNo: number): DigestAlgorithm {
  const normal = name.toLowerCase().replaceAll('-', '');
  if (!ALGORITHMS.includes(normal as DigestAlgorithm))
    throw invalid(`line ${lineNo}: digest algorithm "${name}" is not one of ${ALGORITHMS.join(', ')}`);
  return normal as DigestAlgorithm;
}

/** Java's `split("\\s*\\|\\s*")`: trailing empty cells dropped. */
function splitCells(line: string): string[] {
  const cells = line.split(/\s*\|\s*/);
  while (cells.length > 0 && cells.at(-1) === '') cells.pop();
  return cells;
}

/** `Checkm.setRow` with `ManifestRowAdd`'s fixed columns; a row storage could not store is refused here. */
function parseRow(line: string, lineNo: number): HandOffRow {
  const [url = '', algorithm = '', value = '', size = '', lastModified = '', name = '', mime = ''] =
    splitCells(line);
  if (url === '' || name === '' || algorithm === '' || value === '')
    throw invalid(`line ${lineNo} needs a file URL, a digest algorithm and value, and a file name: ${line}`);
  if (size !== '' && !/^\d+$/.test(size))
    throw invalid(`line ${lineNo}: file size "${size}" is not a number`);
  return {
    url,
    digest: { algorithm: algorithmOf(dec(algorithm), lineNo), value: dec(value).toLowerCase() },
    size: size === '' ? 0 : Number(size),
    path: dec(name),
    ...(lastModified === '' ? {} : { lastModified: dec(lastModified) }),
    ...(mime === '' ? {} : { mimeType: dec(mime) }),
  };
}

/**
 * Reads a manifest as mrt-store does: blank lines and `#` comments skipped, `#%` lines are
 * headers (the profile checked), every other line a file in the fixed column order, and the last
 * line must be `#%eof`. HANDOFF_INVALID naming the line otherwise.
 */
export function parseHandOffManifest(text: string): HandOffRow[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw invalid('it is empty');
  if (!lines.at(-1)!.toLowerCase().startsWith('#%eof'))
    throw invalid('it does not end with #%eof (cut short?)');
  const headers: string[] = [];
  const rows: HandOffRow[] = [];
  lines.forEach((line, index) => {
    if (line.startsWith('#%')) {
      if (rows.length === 0) headers.push(line);
      return;
    }
    if (line.trim() === '' || line.startsWith('#')) return;
    if (rows.length === 0) checkProfile(headers);
    rows.push(parseRow(line, index + 1));
  });
  return rows;
}
