import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { DEFAULT_MAIL_SETTINGS } from '../../config/ingest-settings.js';
import { MERRITT_SENDER_NAME } from '../formats/mail.js';
import type { MailSettings } from '../../config/ingest-settings.js';
import { OutputError } from '../output-errors.js';

type SmtpSettings = NonNullable<IngestSettings['smtp']>;

/** The sender when no SMTP server is configured (the outbox copy still names one). */
export const DEFAULT_FROM = 'merritt-ingest@localhost';

/** What a mail is delivered with: SMTP when configured, else the outbox under the data directory. */
export interface MailDelivery {
  settings: Pick<IngestSettings, 'dataDir' | 'smtp' | 'mail'>;
  /** Connection, greeting and socket timeout of the SMTP exchange (default 30 000 ms). */
  smtpTimeoutMs?: number;
}

/** Where a mail went: `smtp`, or the outbox file it was written to. */
export type Delivered = { via: 'smtp' } | { via: 'outbox'; path: string };

/** The mail settings, or their defaults. */
export function mailSettingsOf(settings: Pick<IngestSettings, 'mail'>): MailSettings {
  return settings.mail ?? DEFAULT_MAIL_SETTINGS;
}

/**
 * From, Reply-To and Bcc as Merritt's mail handlers set them (§4): From `mail-contact` with the
 * display name "UC3 Merritt Support", Reply-To `mail-replyto`, Bcc every `admin` address.
 */
export function merrittEnvelope(
  settings: MailDelivery['settings'],
): Pick<Mail.Options, 'from' | 'replyTo' | 'bcc'> {
  const mail = mailSettingsOf(settings);
  return {
    from: { name: MERRITT_SENDER_NAME, address: settings.smtp?.from ?? DEFAULT_FROM },
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    ...(mail.admin.length > 0 ? { bcc: mail.admin } : {}),
  };
}

/** The message as RFC 5322 bytes (what the outbox keeps). */
async function render(message: Mail.Options): Promise<Buffer> {
  // The stream transport keeps the Bcc header: the outbox copy says who would have received it.
  const info = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail(message);
  return info.message as Buffer;
}

/** `<dir>/<key>-<n>.eml`, n = 1 for the first mail of that key, then 2, 3… */
async function writeOutbox(dir: string, key: string, eml: Buffer): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (let n = 1; ; n += 1) {
    const path = join(dir, `${key}-${n}.eml`);
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(eml);
      } finally {
        await handle.close();
      }
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

async function sendSmtp(
  smtp: SmtpSettings,
  message: Mail.Options,
  what: string,
  timeoutMs: number,
  signal: AbortSignal,
) {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure ?? false,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const onAbort = (): void => transport.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await transport.sendMail(message);
  } catch (err) {
    signal.throwIfAborted();
    const why = err instanceof Error ? err.message : String(err);
    throw new OutputError(
      'REPORT_FAILED',
      `SMTP ${smtp.host}:${smtp.port} did not take the ${what}: ${why}`,
      {
        cause: err,
        retryable: true,
      },
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
    transport.close();
  }
}

/** Where a mail goes when it is not sent: `<dataDir>/<outbox>/<key>-<n>.eml`; `what` names it in errors. */
export interface MailPlace {
  outbox: string;
  key: string;
  what: string;
}

function hasRecipients(message: Mail.Options): boolean {
  const count = (v: Mail.Options['to']): number => (v === undefined ? 0 : Array.isArray(v) ? v.length : 1);
  return count(message.to) + count(message.cc) + count(message.bcc) > 0;
}

/**
 * Sends `message` by SMTP when a server is configured and it has a recipient, else writes it to
 * `<dataDir>/<outbox>/<key>-<n>.eml`. An SMTP failure throws REPORT_FAILED (retryable).
 */
export async function deliverMail(
  delivery: MailDelivery,
  message: Mail.Options,
  place: MailPlace & { signal: AbortSignal },
): Promise<Delivered> {
  const smtp = delivery.settings.smtp;
  if (smtp && hasRecipients(message)) {
    await sendSmtp(smtp, message, place.what, delivery.smtpTimeoutMs ?? 30_000, place.signal);
    return { via: 'smtp' };
  }
  const dir = join(delivery.settings.dataDir, place.outbox);
  return { via: 'outbox', path: await writeOutbox(dir, place.key, await render(message)) };
}

/** Writes `message` to the outbox whatever the SMTP settings (a mail SMTP refused, kept for the operator). */
export async function keepInOutbox(
  delivery: MailDelivery,
  message: Mail.Options,
  place: MailPlace,
): Promise<string> {
  return writeOutbox(join(delivery.settings.dataDir, place.outbox), place.key, await render(message));
}
