/**
 * Credentials in a depositor's URL (`https://user:secret@host/file`). undici ignores a URL's
 * userinfo, so they are sent as HTTP Basic authentication instead, and they never appear in a
 * message, a log line or a span: those show the URL redacted.
 */

/** A URL as it is requested: without userinfo, with the Basic header that userinfo stood for. */
export interface Target {
  url: string;
  authorization?: string;
}

/** What stands for a secret in a shown URL. */
const MASK = '***';

/** The userinfo of a string that is not a URL the WHATWG parser accepts: `scheme://…@`. */
const LOOSE_USERINFO = /^(\s*[a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

function parsed(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** Userinfo is percent-encoded in a URL; a stray `%` is taken as it is. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Moves the userinfo of `raw` into a Basic `authorization` header value; other URLs are kept as given. */
export function splitCredentials(raw: string): Target {
  const url = parsed(raw);
  if (!url || (!url.username && !url.password)) return { url: raw };
  const token = Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`).toString('base64');
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: `Basic ${token}` };
}

/**
 * `raw` fit to show: a password becomes `***` (`https://user:***@host/file`), and so does a user
 * name given alone (that is often a token). A URL without credentials is returned as given.
 */
export function redactUrl(raw: string): string {
  const url = parsed(raw);
  if (!url) return raw.replace(LOOSE_USERINFO, `$1${MASK}@`);
  if (!url.username && !url.password) return raw;
  if (url.password) url.password = MASK;
  else url.username = MASK;
  return url.href;
}
