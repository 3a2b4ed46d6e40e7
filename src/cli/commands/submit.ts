import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import {
  SUBMISSION_KINDS,
  submissionKindOf,
  type SubmissionKind,
} from '../../steps/ingest/submission-kinds.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { openQueue } from '../lazy.js';

interface SubmitFlags {
  profile: string;
  submitter: string;
  type: SubmissionKind;
  collection?: string;
  uuid?: string;
  title?: string;
  json?: boolean;
}

/**
 * `mrtq submit <payload-url>`: queues a batch (pending) and prints its id; an unknown profile is
 * refused. Uploads and the HTTP API are issue #7; the simulated steps expand `sim:<n>` payloads.
 */
/**
 * A local file (no URL scheme) is copied under the first `file://` root (`uploads/`), so the
 * engine, which only reads files inside the roots, can fetch it; a URL is used as it is.
 */
async function asPayloadUrl(payload: string, roots: readonly string[]): Promise<string> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(payload)) return payload;
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
  const target = join(root, 'uploads', `${randomUUID()}-${basename(source)}`);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(source, target);
  return pathToFileURL(target).href;
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
    .option('--type <type>', `submission type: ${SUBMISSION_KINDS.join(', ')}`, submissionType, 'file')
    .option('--collection <mnemonic>', "collection the batch belongs to (default: the profile's)")
    .option(
      '--uuid <uuid>',
      'batch uuid; the same submission again returns its batch, another one under that uuid is refused',
    )
    .option('--title <erc_what>', 'ERC what')
    .option('--json', 'print {"bid","uuid","created"}')
    .action(async (payload: string, flags: SubmitFlags) => {
      let payloadUrl = payload;
      const [{ createLogger }, { loadProfiles }, { createBatch }, { ensureQueueTree }] = await Promise.all([
        import('../../logger.js'),
        import('../../steps/ingest/profiles.js'),
        import('../../queue/batch-create.js'),
        import('../../queue/tree-init.js'),
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
      payloadUrl = await asPayloadUrl(payloadUrl, ctx.config.ingest.fetch.roots);
      const { zk, queue } = await openQueue(ctx);
      try {
        await ensureQueueTree(zk);
        const uuid = flags.uuid ?? randomUUID();
        const { bid, created } = await createBatch(queue, {
          profile_name: flags.profile,
          submitter: flags.submitter,
          payload_url: payloadUrl,
          type: flags.type,
          submission_mode: 'add',
          submissionDate: new Date().toISOString(),
          batchID: uuid,
          ...(flags.title ? { erc_what: flags.title } : {}),
          collection,
        });
        if (flags.json) ctx.stdout.write(JSON.stringify({ bid, uuid, created }) + '\n');
        else ctx.stdout.write(`${bid}\n`);
        if (!created) ctx.stderr.write(`batch ${bid} already had uuid ${uuid}; nothing new was queued\n`);
      } finally {
        await zk.close();
      }
    });
}
