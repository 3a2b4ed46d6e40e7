/**
 * `java.net.URLEncoder.encode(s, "UTF-8")` and `URLDecoder.decode`, which Merritt's services use
 * for the ark in a store node's `mode` and in storage URLs (merritt-protocols.md §1, §2). They are
 * not `encodeURIComponent`: Java keeps `a-z A-Z 0-9 . - * _`, writes a space as `+`, and
 * percent-encodes everything else as the UTF-8 bytes in upper-case hex, `! ' ( ) ~` included.
 */

const KEPT = /^[A-Za-z0-9.\-*_]$/;

/** A lone surrogate: Java's UTF-8 encoder writes `?` for it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const hex = (byte: number): string => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** `URLEncoder.encode(value, "UTF-8")`. */
export function javaUrlEncode(value: string): string {
  let out = '';
  for (const char of value.replace(LONE_SURROGATE, '?')) {
    if (KEPT.test(char)) out += char;
    else if (char === ' ') out += '+';
    else for (const byte of Buffer.from(char, 'utf8')) out += hex(byte);
  }
  return out;
}

/**
 * `URLDecoder.decode(value, "UTF-8")`: `+` is a space, `%XX` a byte; a malformed escape throws
 * (a URIError), as Java's IllegalArgumentException.
 */
export function javaUrlDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
