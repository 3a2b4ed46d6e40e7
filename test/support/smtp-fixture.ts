import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the fixture accepted. */
export interface CapturedMail {
  mailFrom: string;
  rcptTo: string[];
  /** The message as sent (headers and body). */
  raw: string;
  /** Header values by lowercase name (unfolded; the last one wins). */
  headers: Record<string, string>;
  /** The body, quoted-printable decoded when the message says so. */
  text: string;
}

export interface SmtpFixture {
  port: number;
  messages: CapturedMail[];
  /** Refuse every message from now on with this SMTP code (e.g. 550), or accept again (undefined). */
  refuseWith(code: number | undefined): void;
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  // Literal `%` first, so that only the `=XX` escapes become percent escapes.
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/%/g, '%25')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
  try {
    return decodeURIComponent(bytes);
  } catch {
    return text;
  }
}

function parseMail(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const qp = /quoted-printable/i.test(headers['content-transfer-encoding'] ?? '');
  return { headers, text: (qp ? decodeQuotedPrintable(body) : body).replace(/\r\n/g, '\n') };
}

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1, random port, no TLS and no
 * authentication, that keeps every message it accepts.
 */
export async function startSmtpFixture(): Promise<SmtpFixture> {
  const messages: CapturedMail[] = [];
  let refuse: number | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refuse !== undefined) {
          const err = Object.assign(new Error('mailbox unavailable (test)'), { responseCode: refuse });
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        messages.push({ mailFrom, rcptTo, raw, ...parseMail(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    messages,
    refuseWith: (code) => {
      refuse = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
