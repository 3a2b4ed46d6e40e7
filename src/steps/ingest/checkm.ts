import type { Digest } from './contracts.js';
import { parseDigest } from './digest.js';
import { ManifestError } from './errors.js';

/**
 * checkm 0.7 manifests as Merritt uses them: a `%checkm_0.7` header, a `%fields` line naming the
 * columns, one `|`-separated entry per line, `#` comments, `%eof` at the end.
 */

/** One entry of a manifest. Typed properties come from the known fields; `values` has every column. */
export interface CheckmEntry {
  /** 1-based line number in the manifest. */
  line: number;
  fileUrl: string;
  /** From `nfo:hashAlgorithm` and `nfo:hashValue`. */
  digest?: Digest;
  fileSize?: number;
  fileLastModified?: string;
  fileName?: string;
  primaryIdentifier?: string;
  localIdentifier?: string;
  creator?: string;
  title?: string;
  date?: string;
  /** Every column by its field name as written in `%fields` (unknown fields included); empty columns are ''. */
  values: Record<string, string>;
}

/** A parsed manifest: its fields in order, its profile, its entries. */
export interface CheckmManifest {
  fields: string[];
  /** The `%profile` line's value, when there is one. */
  profile?: string;
  entries: CheckmEntry[];
}

type TextKey =
  'fileLastModified' | 'fileName' | 'primaryIdentifier' | 'localIdentifier' | 'creator' | 'title' | 'date';

/** Known fields (lowercase) and the plain-text property each fills. */
const TEXT_FIELDS: Readonly<Record<string, TextKey>> = {
  'nfo:filelastmodified': 'fileLastModified',
  'nfo:filename': 'fileName',
  'mrt:primaryidentifier': 'primaryIdentifier',
  'mrt:localidentifier': 'localIdentifier',
  'mrt:creator': 'creator',
  'mrt:title': 'title',
  'mrt:date': 'date',
};

const HEADER = /^%checkm_0\.7(?:\s|\||$)/i;

function preview(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Reads a manifest's fields into a lowercase lookup of column values. */
function column(fields: readonly string[], cells: readonly string[]): (name: string) => string {
  const lookup = new Map(fields.map((field, i) => [field.toLowerCase(), cells[i] ?? '']));
  return (name) => lookup.get(name) ?? '';
}

function parseFields(cells: string[], fail: (what: string) => ManifestError): string[] {
  const fields = cells.slice(1);
  if (fields.length === 0 || fields.some((field) => field === ''))
    throw fail('%fields has an empty field name');
  const lower = fields.map((field) => field.toLowerCase());
  const duplicate = lower.find((field, i) => lower.indexOf(field) !== i);
  if (duplicate) throw fail(`%fields names "${duplicate}" twice`);
  if (!lower.includes('nfo:fileurl')) throw fail('%fields has no nfo:fileUrl');
  return fields;
}

function parseUrl(value: string, fail: (what: string) => ManifestError): string {
  if (value === '') throw fail('empty nfo:fileUrl');
  if (!URL.canParse(value)) throw fail(`nfo:fileUrl "${preview(value)}" is not a URL`);
  return value;
}

function parseSize(value: string, fail: (what: string) => ManifestError): number | undefined {
  if (value === '') return undefined;
  const size = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(size)) {
    throw fail(`nfo:fileSize "${preview(value)}" is not a size in bytes`);
  }
  return size;
}

function parseHash(
  algorithm: string,
  value: string,
  fail: (what: string) => ManifestError,
): Digest | undefined {
  if (algorithm === '' && value === '') return undefined;
  if (algorithm === '') throw fail('nfo:hashValue without nfo:hashAlgorithm');
  if (value === '') throw fail('nfo:hashAlgorithm without nfo:hashValue');
  const digest = parseDigest(algorithm, value);
  if (typeof digest === 'string') throw fail(digest);
  return digest;
}

function parseEntry(fields: string[], cells: string[], line: number, fail: (what: string) => ManifestError) {
  if (cells.length > fields.length) {
    throw fail(`${cells.length} columns, but %fields names ${fields.length}`);
  }
  const get = column(fields, cells);
  const entry: CheckmEntry = {
    line,
    fileUrl: parseUrl(get('nfo:fileurl'), fail),
    values: Object.fromEntries(fields.map((field, i) => [field, cells[i] ?? ''])),
  };
  const digest = parseHash(get('nfo:hashalgorithm'), get('nfo:hashvalue'), fail);
  if (digest) entry.digest = digest;
  const size = parseSize(get('nfo:filesize'), fail);
  if (size !== undefined) entry.fileSize = size;
  for (const [field, key] of Object.entries(TEXT_FIELDS)) {
    const value = get(field);
    if (value !== '') entry[key] = value;
  }
  return entry;
}

function headerLine(lines: string[], fail: (line: number, what: string) => ManifestError): number {
  const index = lines.findIndex((line) => line.trim() !== '');
  if (index < 0) throw fail(1, 'the manifest is empty (expected a %checkm_0.7 header)');
  const first = (lines[index] ?? '').trim();
  if (!HEADER.test(first))
    throw fail(index + 1, `expected the header %checkm_0.7, found "${preview(first)}"`);
  return index;
}

/**
 * Parses a checkm 0.7 manifest. A line with fewer columns than `%fields` has the rest empty
 * (checkm lets trailing columns be left out); anything that cannot be an object's file list
 * throws a ManifestError naming the line (and `source`, e.g. the manifest's URL) and the fault.
 */
export function parseCheckm(input: string | Uint8Array, source = 'manifest'): CheckmManifest {
  const text = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const fail = (line: number, what: string) => new ManifestError(`${source} line ${line}: ${what}`, line);
  let fields: string[] | undefined;
  let profile: string | undefined;
  const entries: CheckmEntry[] = [];
  for (let i = headerLine(lines, fail) + 1; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    const failHere = (what: string) => fail(i + 1, what);
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split('|').map((cell) => cell.trim());
    const directive = line.startsWith('%') ? (cells[0] ?? '').toLowerCase() : undefined;
    if (directive === '%eof') break;
    if (directive === '%fields') {
      if (fields) throw failHere('a second %fields line');
      fields = parseFields(cells, failHere);
    } else if (directive === '%profile') {
      profile = cells[1];
    } else if (directive === undefined) {
      if (!fields) throw failHere('an entry before the %fields line');
      entries.push(parseEntry(fields, cells, i + 1, failHere));
    }
  }
  if (!fields) throw new ManifestError(`${source}: no %fields line`);
  if (entries.length === 0) throw new ManifestError(`${source}: no entries`);
  return { fields, ...(profile ? { profile } : {}), entries };
}

function checkCell(value: string): string {
  if (/[|\r\n]/.test(value) || value !== value.trim()) {
    throw new Error(
      `checkm cannot hold the value ${JSON.stringify(value)} (a "|", a line break or outer spaces)`,
    );
  }
  return value;
}

/**
 * Writes a checkm 0.7 manifest with the given fields and one line per row (a row maps field
 * names to values; missing ones are empty). Throws for values checkm cannot represent.
 */
export function serializeCheckm(
  fields: readonly string[],
  rows: ReadonlyArray<Readonly<Record<string, string | undefined>>>,
  options: { profile?: string } = {},
): string {
  const lines = ['%checkm_0.7'];
  if (options.profile) lines.push(`%profile | ${checkCell(options.profile)}`);
  lines.push(`%fields | ${fields.map(checkCell).join(' | ')}`);
  for (const row of rows) {
    const cells = fields.map((field) => checkCell(row[field] ?? ''));
    if (/^[#%]/.test(cells[0] ?? '')) throw new Error(`a row cannot start with "#" or "%": ${cells[0]}`);
    lines.push(cells.join(' | '));
  }
  lines.push('%eof', '');
  return lines.join('\n');
}
