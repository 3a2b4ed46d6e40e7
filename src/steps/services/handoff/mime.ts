/**
 * The `nie:mimeType` of a hand-off manifest row. Merritt's ingest asks Apache Tika (mrt-core's
 * `Tika.getMimeType`): first its own table of archive suffixes, then Tika's detector, which
 * trusts a file's magic bytes and lets the name refine a plain-text or unknown result. This is a
 * small rendering of that for the types objects usually hold; anything else is
 * `application/octet-stream`, or `text/plain` when the start of the file reads as text.
 */

/** mrt-core's `Tika.buildAlternates`, in its order (checked on the lower-cased name's end). */
const MERRITT_ALTERNATES: ReadonlyArray<readonly [string, string]> = [
  ['.ttl', 'plain/turtle'],
  ['.tar.gz', 'application/x-gtar'],
  ['.tgz', 'application/x-gtar'],
  ['.gz', 'application/gzip'],
  ['.gzip', 'application/gzip'],
  ['.zip', 'application/zip'],
  ['.tar', 'application/x-tar'],
  ['.bz', 'application/x-bzip'],
  ['.bz2', 'application/x-bzip2'],
  ['.cpio', 'application/x-cpio'],
  ['.ar', 'application/x-archive'],
  ['.hdr', 'image/vnd.radiance'],
];

/** Tika's names for common extensions. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  text: 'text/plain',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  htm: 'text/html',
  html: 'text/html',
  css: 'text/css',
  md: 'text/x-web-markdown',
  xml: 'application/xml',
  xsd: 'application/xml',
  json: 'application/json',
  js: 'text/javascript',
  svg: 'image/svg+xml',
  rdf: 'application/rdf+xml',
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  jp2: 'image/jp2',
  bmp: 'image/bmp',
  mp3: 'audio/mpeg',
  wav: 'audio/vnd.wave',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  bin: 'application/octet-stream',
};

/** Magic bytes Tika recognises first, whatever the name says. */
const MAGIC: ReadonlyArray<readonly [Buffer, string]> = [
  [Buffer.from('%PDF-'), 'application/pdf'],
  [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
  [Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
  [Buffer.from('GIF87a'), 'image/gif'],
  [Buffer.from('GIF89a'), 'image/gif'],
  [Buffer.from([0x49, 0x49, 0x2a, 0x00]), 'image/tiff'],
  [Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), 'image/tiff'],
  [Buffer.from([0x1f, 0x8b]), 'application/gzip'],
  [Buffer.from('<?xml'), 'application/xml'],
];

const OCTET_STREAM = 'application/octet-stream';

/** Types Tika holds to be kinds of plain text, which a name may refine text content to. */
const isTextual = (type: string): boolean =>
  type.startsWith('text/') || type.endsWith('+xml') || ['application/xml', 'application/json'].includes(type);

/** Text: no NUL and no control bytes but tab, line breaks, form feed and escape, and valid UTF-8. */
function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return false;
  if (head.some((b) => b < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d, 0x1b].includes(b))) return false;
  try {
    // `stream`: the head may end inside a character, which is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** What the content alone says: a known signature, text, or nothing known. */
function byContent(head: Buffer): string {
  const magic = MAGIC.find(([bytes]) => head.subarray(0, bytes.length).equals(bytes));
  if (magic) return magic[1];
  return looksLikeText(head) ? 'text/plain' : OCTET_STREAM;
}

/** How many bytes of the file's start {@link mimeTypeOf} looks at. */
export const MIME_SNIFF_BYTES = 8192;

/** The MIME type Merritt's ingest would give the file `name` (a path or base name) starting with `head`. */
export function mimeTypeOf(name: string, head: Buffer): string {
  const base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  const alternate = MERRITT_ALTERNATES.find(([suffix]) => base.endsWith(suffix));
  if (alternate) return alternate[1];
  const dot = base.lastIndexOf('.');
  const named = dot > 0 ? BY_EXTENSION[base.slice(dot + 1)] : undefined;
  const sniffed = byContent(head);
  if (!named) return sniffed;
  if (sniffed === OCTET_STREAM) return named;
  if (sniffed === 'text/plain' && isTextual(named)) return named;
  if (sniffed === 'application/xml' && named.endsWith('+xml')) return named;
  return sniffed;
}
