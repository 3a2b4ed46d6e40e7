import type { Digest } from '../ingest-contracts.js';
import {
  checkFields,
  decode,
  directiveOf,
  encode,
  OUTER_BLANKS,
  preview,
  splitCells,
  unwritable,
  URL_FIELD,
} from './checkm-cells.js';
import { parseDigest } from './digest.js';
import { ManifestError } from '../intake-errors.js';

/**
 * checkm 0.7 manifests as Merritt reads and writes them (mrt-core `core/Manifest`, `Checkm`,
 * `ManifestRowCheckmAbs`). Directives start `#%` (the bare `%` form, this engine's older one, is
 * read too): the `#%checkm_0.7` header, `#%profile` (with or without a `|`), `#%prefix`,
 * `#%fields` (or `#%columns`, which Merritt's own writers use) and `#%eof` (any case), which ends
 * the manifest; other `#` lines are comments. A row is split on `|` and the blanks around it,
 * trailing empty cells dropped (Java's `split`), and `%20` and `%7c` are decoded in every cell
 * but the file URL (`Checkm.dec`, `getValNoDec`).
 */

/** One entry of a manifest. Typed properties come from the known fields; `values` has every column. */
export interface CheckmEntry {
  /** 1-based line number in the manifest. */
  line: number;
  /** As written: a URL's own percent-encoding is kept. */
  fileUrl: string;
  /** From `nfo:hashAlgorithm` and `nfo:hashValue` when both are given (Merritt ignores one alone). */
  digest?: Digest;
  fileSize?: number;
  fileLastModified?: string;
  fileName?: string;
  /** `mrt:mimeType` (the depositors' name) or `nie:mimeType` (Merritt's). */
  mimeType?: string;
  primaryIdentifier?: string;
  localIdentifier?: string;
  creator?: string;
  title?: string;
  date?: string;
  /** Every column by its field name, decoded (the URL aside); empty and left-out columns are ''. */
  values: Record<string, string>;
}

/** A parsed manifest: its fields in order, its profile, its entries. */
export interface CheckmManifest {
  /** As `#%fields`/`#%columns` names them, or Merritt's columns for the profile when neither is there. */
  fields: string[];
  /** The `#%profile` line's URL, as written (trimmed); the first one when there are several. */
  profile?: string;
  entries: CheckmEntry[];
}

const COMMON_FIELDS = [
  'nfo:fileUrl',
  'nfo:hashAlgorithm',
  'nfo:hashValue',
  'nfo:fileSize',
  'nfo:fileLastModified',
  'nfo:fileName',
];

/** Merritt reads an object manifest by these positions (`ManifestRowIngest`), whatever `#%fields` says. */
export const OBJECT_MANIFEST_FIELDS: readonly string[] = [...COMMON_FIELDS, 'mrt:mimeType'];

/** …and a batch manifest by these (`ManifestRowBatch`). */
export const BATCH_MANIFEST_FIELDS: readonly string[] = [
  ...COMMON_FIELDS,
  'mrt:primaryIdentifier',
  'mrt:localIdentifier',
  'mrt:creator',
  'mrt:title',
  'mrt:date',
];

/** The `#%prefix` lines Merritt's samples and clients write, by prefix. */
const PREFIX_URIS: Readonly<Record<string, string>> = {
  mrt: 'http://merritt.cdlib.org/terms#',
  nfo: 'http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
  nie: 'http://www.semanticdesktop.org/ontologies/2007/01/19/nie/#',
};

type TextKey = Exclude<keyof CheckmEntry, 'line' | 'fileUrl' | 'digest' | 'fileSize' | 'values'>;

/** Known fields (lowercase) and the plain-text property each fills. */
const TEXT_FIELDS: Readonly<Record<string, TextKey>> = {
  'nfo:filelastmodified': 'fileLastModified',
  'nfo:filename': 'fileName',
  'mrt:mimetype': 'mimeType',
  'nie:mimetype': 'mimeType',
  'mrt:primaryidentifier': 'primaryIdentifier',
  'mrt:localidentifier': 'localIdentifier',
  'mrt:creator': 'creator',
  'mrt:title': 'title',
  'mrt:date': 'date',
};

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

function parseHash(algorithm: string, value: string, fail: (what: string) => ManifestError) {
  if (algorithm === '' || value === '') return undefined;
  const digest = parseDigest(algorithm, value);
  if (typeof digest === 'string') throw fail(digest);
  return digest;
}

/**
 * The columns a manifest is read by, and how messages name where they came from; worked out once
 * a manifest (a row is then read without a lookup by name: 20,000 rows are read at every step).
 */
interface Columns {
  fields: string[];
  label: string;
  /** Each field's column, by its lower-case name (field names are unique in any case). */
  at: ReadonlyMap<string, number>;
  /** The URL's column (read as written, never decoded). */
  url: number;
  /** The known text fields' columns, in TEXT_FIELDS' order (the first with a value wins). */
  texts: ReadonlyArray<readonly [number, TextKey]>;
}

function columnsOf(fields: string[], label: string): Columns {
  const at = new Map(fields.map((field, i) => [field.toLowerCase(), i] as const));
  const texts = Object.entries(TEXT_FIELDS).flatMap(([field, key]) => {
    const i = at.get(field);
    return i === undefined ? [] : [[i, key] as const];
  });
  return { fields, label, at, url: at.get(URL_FIELD) ?? -1, texts };
}

function parseEntry(columns: Columns, line: string, lineNo: number, fail: (what: string) => ManifestError) {
  const { fields, label, at } = columns;
  const cells = splitCells(line);
  if (cells.length > fields.length)
    throw fail(`${cells.length} columns, but ${label} names ${fields.length}`);
  const read: string[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < fields.length; i++) {
    const cell = cells[i] ?? '';
    read.push(i === columns.url ? cell : decode(cell));
    values[fields[i]!] = read[i]!;
  }
  const get = (name: string) => {
    const i = at.get(name);
    return i === undefined ? '' : read[i]!;
  };
  const entry: CheckmEntry = { line: lineNo, fileUrl: parseUrl(get(URL_FIELD), fail), values };
  const digest = parseHash(get('nfo:hashalgorithm'), get('nfo:hashvalue'), fail);
  if (digest) entry.digest = digest;
  const size = parseSize(get('nfo:filesize'), fail);
  if (size !== undefined) entry.fileSize = size;
  for (const [i, key] of columns.texts) {
    const value = read[i]!;
    if (value !== '' && entry[key] === undefined) entry[key] = value;
  }
  return entry;
}

/** Merritt's columns when a manifest names none: its profile's (`ManifestRowBatch` or `ManifestRowIngest`). */
function defaultColumns(profile: string | undefined): Columns {
  const batch = profile?.endsWith('batch-manifest') ?? false;
  return columnsOf(
    [...(batch ? BATCH_MANIFEST_FIELDS : OBJECT_MANIFEST_FIELDS)],
    `Merritt's ${batch ? 'batch' : 'object'} manifest columns (there is no #%fields line)`,
  );
}

/** What the lines read so far have set. */
interface ReadState {
  columns?: Columns;
  profile?: string;
  ended: boolean;
  entries: CheckmEntry[];
}

function readDirective(state: ReadState, line: string, fail: (what: string) => ManifestError): void {
  const { name, rest } = directiveOf(line)!;
  const label = line.split(/[\s|]/, 1)[0]!;
  if (name.startsWith('eof')) {
    state.ended = true;
  } else if (state.entries.length > 0) {
    throw fail(`${label} among the entries (directives go before the first entry)`);
  } else if (name === 'profile') {
    if (rest === '') throw fail(`${label} names no profile`);
    state.profile ??= rest;
  } else if (name === 'fields' || name === 'columns') {
    if (state.columns) throw fail(`a second field list (${label})`);
    state.columns = columnsOf(checkFields(splitCells(rest), label, fail), label);
  }
  // `#%checkm_0.7` again, `#%prefix` and unknown directives are read past, as Merritt does.
}

function readLine(
  state: ReadState,
  line: string,
  lineNo: number,
  fail: (what: string) => ManifestError,
): void {
  if (line === '') return;
  if (state.ended) throw fail(`"${preview(line)}" after #%eof (the manifest ends there)`);
  if (line.startsWith('%') || line.startsWith('#%')) return readDirective(state, line, fail);
  if (line.startsWith('#')) return;
  state.columns ??= defaultColumns(state.profile);
  state.entries.push(parseEntry(state.columns, line, lineNo, fail));
}

/**
 * Parses a checkm 0.7 manifest as Merritt reads it. A row with fewer columns than the field list
 * has the rest empty; a manifest whose header is `#%checkm_0.7` must end with `#%eof`, as
 * Merritt requires (the bare `%checkm_0.7` form may leave it out). Which profile is allowed is the
 * caller's to check. Anything else that cannot be an object's file list throws a ManifestError
 * naming `source` (e.g. the manifest's URL), the line and the fault.
 */
export function parseCheckm(input: string | Uint8Array, source = 'manifest'): CheckmManifest {
  const text = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const fail = (line: number, what: string) => new ManifestError(`${source} line ${line}: ${what}`, line);
  const start = lines.findIndex((line) => line.replace(OUTER_BLANKS, '') !== '');
  if (start < 0) throw fail(1, 'the manifest is empty (expected a #%checkm_0.7 header)');
  const header = lines[start]!.replace(OUTER_BLANKS, '');
  if (directiveOf(header)?.name !== 'checkm_0.7') {
    throw fail(start + 1, `expected the header #%checkm_0.7, found "${preview(header)}"`);
  }
  const state: ReadState = { ended: false, entries: [] };
  for (let i = start + 1; i < lines.length; i++) {
    readLine(state, lines[i]!.replace(OUTER_BLANKS, ''), i + 1, (what) => fail(i + 1, what));
  }
  if (header.startsWith('#') && !state.ended) {
    throw new ManifestError(`${source}: no #%eof line at the end (Merritt requires one; is it cut short?)`);
  }
  if (state.entries.length === 0) throw new ManifestError(`${source}: no entries`);
  const { columns, profile, entries } = state;
  return { fields: columns!.fields, ...(profile ? { profile } : {}), entries };
}

/** A URL is read as written (its own `%20` stays), so only its `|` is escaped: `%7c` is the same URL. */
function formatCell(field: string, value: string, fail: (what: string) => Error): string {
  if (field.toLowerCase() !== URL_FIELD) {
    const why = unwritable(value);
    if (why) throw fail(`${field} ${JSON.stringify(value)} holds ${why}`);
    return encode(value);
  }
  if (/^\s|\s$|[\r\n]/.test(value))
    throw fail(`${field} ${JSON.stringify(value)} has blanks at an end or a line break`);
  return value.replaceAll('|', '%7c');
}

/** A row as `Checkm.getLine` writes it: cells joined by ` | `, ending at the last one with a value. */
function formatRow(
  fields: readonly string[],
  row: Readonly<Record<string, string | undefined>>,
  fail: (what: string) => Error,
): string {
  const cells = fields.map((field) => formatCell(field, row[field] ?? '', fail));
  while (cells.length > 1 && cells.at(-1) === '') cells.pop();
  const line = cells.join(' | ');
  if (line === '') throw fail('a row with no values');
  if (/^[#%]/.test(line))
    throw fail(`a row would start with "${line[0]}" (a comment or directive): ${preview(line)}`);
  return line;
}

/**
 * Writes a checkm 0.7 manifest in Merritt's form: `#%checkm_0.7`, `#%profile | URL` (when
 * given), the `#%prefix` lines of the prefixes the fields use, `#%fields`, one row per entry
 * (a row maps field names to values; missing ones are empty), `#%eof`, every line ending `\n`.
 * Values are escaped as `Checkm.enc` does; text Merritt's reader cannot give back (a line break,
 * a literal `%20` or `%7c`, a tab at an end) throws. parseCheckm reads the text back to the same
 * values when the rows are valid entries (a URL, sizes in bytes, known digests).
 */
export function serializeCheckm(
  fields: readonly string[],
  rows: ReadonlyArray<Readonly<Record<string, string | undefined>>>,
  options: { profile?: string } = {},
): string {
  const fail = (what: string) => new Error(`cannot write checkm: ${what}`);
  const badName = fields.find((field) => !/^[^\s|]+$/.test(field));
  if (badName !== undefined) throw fail(`the field name ${JSON.stringify(badName)} has a blank or a |`);
  checkFields([...fields], '#%fields', fail);
  const lines = ['#%checkm_0.7'];
  if (options.profile) {
    const profile = options.profile.trim();
    if (/[\r\n]/.test(profile)) throw fail(`the profile ${JSON.stringify(profile)} holds a line break`);
    lines.push(`#%profile | ${profile}`);
  }
  const prefixes = new Set(fields.map((field) => field.split(':', 1)[0]!.toLowerCase()));
  for (const [prefix, uri] of Object.entries(PREFIX_URIS)) {
    if (prefixes.has(prefix)) lines.push(`#%prefix | ${prefix}: | ${uri}`);
  }
  lines.push(`#%fields | ${fields.join(' | ')}`);
  for (const row of rows) lines.push(formatRow(fields, row, fail));
  lines.push('#%eof');
  return lines.map((line) => `${line}\n`).join('');
}
