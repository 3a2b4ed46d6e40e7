/** A MIME part (or a whole message): its headers (lowercase names, unfolded) and decoded body. */
export interface MimePart {
  headers: Record<string, string>;
  /** The body, transfer-decoded (base64, quoted-printable) as UTF-8 text; empty for a multipart. */
  body: string;
  /** The parts of a multipart, in order (nested multiparts flattened). */
  parts: MimePart[];
}

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  if (at === -1) return { head: raw, body: '' };
  return { head: raw.slice(0, at), body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decodeQuotedPrintable(text: string): string {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i += 1) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/** An RFC 2047 encoded word (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded; other text as it is. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

/**
 * Parses a message as an SMTP server received it (RFC 5322 + MIME): headers, the decoded body of
 * a single-part message, or its parts. Written for the tests, against the standards, not against
 * the engine's mail code.
 */
export function parseMime(raw: string): MimePart {
  const { head, body } = splitHead(raw);
  const headers = parseHeaders(head);
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary)
    return { headers, body: decodeBody(headers, body), parts: [] };
  const sections = body.split(
    new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?`),
  );
  const parts = sections
    .slice(1)
    .filter((s) => s.trim() !== '')
    .map((s) => parseMime(s.replace(/^\r?\n/, '')))
    .flatMap((p) => (p.parts.length > 0 ? p.parts : [p]));
  return { headers, body: '', parts };
}

/** The file name a part is attached under (`Content-Disposition: attachment; filename=…`). */
export function attachmentName(part: MimePart): string | undefined {
  const disposition = part.headers['content-disposition'] ?? '';
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1];
}

/** The message's text part: the body of a single-part message, else its first text/plain part without a file name. */
export function textOf(message: MimePart): string {
  if (message.parts.length === 0) return message.body.replace(/\r\n/g, '\n');
  const part = message.parts.find(
    (p) => /^text\/plain/i.test(p.headers['content-type'] ?? '') && !attachmentName(p),
  );
  return (part?.body ?? '').replace(/\r\n/g, '\n');
}
