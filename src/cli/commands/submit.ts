import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, open, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import type { Submission } from '../../queue/tree/records.js';
import { parseDigest } from '../../steps/formats/digest.js';
import { GUESS_HEAD_BYTES, guessSubmissionKind } from '../../steps/batch/submission-guess.js';
import {
  SUBMISSION_KINDS,
  submissionKindOf,
  type SubmissionKind,
} from '../../steps/batch/submission-kinds.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { openQueue } from '../lazy.js';

interface SubmitFlags {
  profile: string;
  submitter: string;
  type?: SubmissionKind;
  collection?: string;
  uuid?: string;
  title?: string;
  creator?: string;
  date?: string;
  localId?: string;
  primaryId?: string;
  digest?: string;
  digestType?: string;
  digestValue?: string;
  note?: string;
  notification?: string;
  notificationFormat?: string;
  fileName?: string;
  size?: number;
  json?: boolean;
}

/** What a local file payload became: its `file://` URL under the roots, its name and its kind. */
interface Payload {
  url: string;
  /** The local file's own name (the URL's is the copy's). */
  fileName?: string;
  /** Guessed from a local file as Merritt's ingest guesses an upload; a URL's is left to the expansion. */
  kind?: SubmissionKind;
}

/** The first bytes of `path`, as text: what the guess reads of a manifest. */
async function headOf(path: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(GUESS_HEAD_BYTES);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
}

/**
 * A local file (no URL scheme) is copied under the first `file://` root (`uploads/`), so the
 * engine, which only reads files inside the roots, can fetch it; a URL is used as it is.
 */
async function asPayload(
  payload: string,
  roots: readonly string[],
  type: SubmissionKind | undefined,
): Promise<Payload> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(payload)) return { url: payload, kind: type };
  const source = resolve(payload);
  try {
    if (!(await stat(source)).isFile()) throw new Error('not a file');
  } catch {
    throw new CliError(`"${payload}" is neither a URL nor a readable file`, ExitCode.usage);
  }
  const root = roots[0];
  if (!root)
    throw new CliError(
      'no file roots are configured (MRTQ_FILE_ROOTS) to copy the file into',
      ExitCode.usage,
    );
  const fileName = basename(source);
  const kind = type ?? guessSubmissionKind(fileName, await headOf(source));
  const target = join(root, 'uploads', `${randomUUID()}-${fileName}`);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(source, target);
  return { url: pathToFileURL(target).href, fileName, kind };
}

/** `--digest sha256:HEX`, or `--digest-type` with `--digest-value`, checked as the API checks them. */
function digestOf(flags: SubmitFlags): { digest_type: string; digest_value: string } | undefined {
  if (flags.digest !== undefined && (flags.digestType !== undefined || flags.digestValue !== undefined))
    throw new CliError('give --digest, or --digest-type with --digest-value, not both', ExitCode.usage);
  let type = flags.digestType;
  let value = flags.digestValue;
  if (flags.digest !== undefined) {
    const colon = flags.digest.indexOf(':');
    if (colon <= 0)
      throw new CliError(`--digest "${flags.digest}": expected <algorithm>:<hex>`, ExitCode.usage);
    type = flags.digest.slice(0, colon);
    value = flags.digest.slice(colon + 1);
  }
  if (type === undefined && value === undefined) return undefined;
  if (type === undefined || value === undefined)
    throw new CliError('--digest-type and --digest-value come together', ExitCode.usage);
  const parsed = parseDigest(type, value);
  if (typeof parsed === 'string') throw new CliError(`--digest: ${parsed}`, ExitCode.usage);
  return { digest_type: type, digest_value: value };
}

/** The submission node of the flags (the keys `POST /batches` writes for the same fields). */
function submissionOf(flags: SubmitFlags, payload: Payload, collection: string, uuid: string): Submission {
  const submission: Submission = {
    profile_name: flags.profile,
    submitter: flags.submitter,
    payload_url: payload.url,
    ...(payload.kind ? { type: payload.kind } : {}),
    submission_mode: 'add',
    submissionDate: new Date().toISOString(),
    batchID: uuid,
    collection,
  };
  const optional: Partial<Submission> = {
    erc_who: flags.creator,
    erc_what: flags.title,
    erc_when: flags.date,
    local_id: flags.localId,
    primary_id: flags.primaryId,
    file_name: flags.fileName ?? payload.fileName,
    file_size: flags.size,
    ...digestOf(flags),
    note: flags.note,
    notification: flags.notification,
    notification_format: flags.notificationFormat,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) submission[key] = value;
  return submission;
}

function byteCount(value: string): number {
  if (!/^[0-9]{1,15}$/.test(value))
    throw new CliError(`--size "${value}": expected a number of bytes`, ExitCode.usage);
  return Number(value);
}

/**
 * A `--type` the engine can expand (Merritt ingest's spellings too), as its canonical name; any
 * other is a usage error naming the allowed types, before anything is read or connected.
 */
function submissionType(value: string): SubmissionKind {
  const kind = submissionKindOf(value);
  if (!kind)
    throw new CliError(`unknown --type "${value}" (allowed: ${SUBMISSION_KINDS.join(', ')})`, ExitCode.usage);
  return kind;
}

/**
 * `mrtq submit <payload>`: queues a batch (pending) and prints its id; an unknown profile is
 * refused. Takes the fields of Merritt's submission form (`POST /batches` takes the same): a
 * local file's type is guessed here as Merritt guesses an upload, a URL's by the batch's expansion.
 */
export function registerSubmit(program: Command, ctx: CliContext): void {
  program
    .command('submit')
    .description('queue a batch for the payload URL and print its batch id')
    .argument(
      '<payload>',
      'a payload URL (http(s)://, file://, sim:<n>) or a local file, copied into the file roots',
    )
    .requiredOption('--profile <name>', 'ingest profile')
    .option('--submitter <who>', 'who submits', 'mrtq')
    .option(
      '--type <type>',
      `submission type: ${SUBMISSION_KINDS.join(', ')} (default: guessed from a local file as Merritt guesses an upload; a URL's by the engine)`,
      submissionType,
    )
    .option('--collection <mnemonic>', "collection the batch belongs to (default: the profile's)")
    .option(
      '--uuid <uuid>',
      'batch uuid; the same submission again returns its batch, another one under that uuid is refused',
    )
    .option('--title <erc_what>', "ERC what: the object's title")
    .option('--creator <erc_who>', "ERC who: the object's creator")
    .option('--date <erc_when>', "ERC when: the object's date")
    .option('--local-id <ids>', "local ids (Merritt's `;`-separated list)")
    .option('--primary-id <ark>', "the object's ark")
    .option(
      '--digest <algorithm:hex>',
      "the payload's digest, e.g. sha256:ab12… (md5, sha1, sha256, sha384, sha512, crc32, adler32)",
    )
    .option('--digest-type <algorithm>', "the payload digest's algorithm (with --digest-value)")
    .option('--digest-value <hex>', "the payload digest's value (with --digest-type)")
    .option('--note <text>', 'a note kept with the submission')
    .option('--notification <address>', "where the batch's report goes instead of the profile's addresses")
    .option('--notification-format <form>', 'the form of the notification (xml, json, anvl…)')
    .option(
      '--file-name <name>',
      "the payload's file name (default: a local file's own, a URL's last segment)",
    )
    .option('--size <bytes>', "the payload's size in bytes", byteCount)
    .option('--json', 'print {"bid","uuid","created"}')
    .action(async (payloadUrl: string, flags: SubmitFlags) => {
      const [{ createLogger }, { loadProfiles }, { createBatch }, { ensureQueueTree }] = await Promise.all([
        import('../../logger.js'),
        import('../../steps/formats/profiles/profiles.js'),
        import('../../queue/batches/create.js'),
        import('../../queue/tree/init.js'),
      ]);
      // A clamped Priority or an unknown NotificationFormat is worth a warning on stderr.
      const log = createLogger({ level: 'warn', fd: 2 });
      const profiles = await loadProfiles(ctx.config.ingest.profilesDir, { log });
      if (!profiles.names().includes(flags.profile)) {
        const known = profiles.names().join(', ') || 'none';
        throw new CliError(
          `unknown profile "${flags.profile}" (known in ${ctx.config.ingest.profilesDir}: ${known})`,
          ExitCode.usage,
        );
      }
      const collection = flags.collection ?? profiles.getProfile(flags.profile).collection;
      digestOf(flags); // a bad digest is refused before a file is copied
      const payload = await asPayload(payloadUrl, ctx.config.ingest.fetch.roots, flags.type);
      const { zk, queue } = await openQueue(ctx);
      try {
        await ensureQueueTree(zk);
        const uuid = flags.uuid ?? randomUUID();
        const { bid, created } = await createBatch(queue, submissionOf(flags, payload, collection, uuid));
        if (flags.json) ctx.stdout.write(JSON.stringify({ bid, uuid, created }) + '\n');
        else ctx.stdout.write(`${bid}\n`);
        if (!created) ctx.stderr.write(`batch ${bid} already had uuid ${uuid}; nothing new was queued\n`);
      } finally {
        await zk.close();
      }
    });
}
