import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { pino } from 'pino';
import { createLogger } from '../../logger.js';
import { createBatch } from '../../queue/batch-create.js';
import { ensureQueueTree } from '../../queue/tree-init.js';
import { connectForCommand } from '../connection.js';
import type { CliContext } from '../context.js';
import { commandQueueContext } from '../options.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { loadProfiles } from '../../steps/ingest/profiles.js';

interface SubmitFlags {
  profile: string;
  submitter: string;
  type: string;
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
      'file, container, object-manifest, manifest-of-manifests, manifest-of-containers',
      'file',
    )
    .option('--collection <mnemonic>', "collection the batch belongs to (default: the profile's)")
    .option(
      '--uuid <uuid>',
      'batch uuid; the same submission again returns its batch, another one under that uuid is refused',
    )
    .option('--title <erc_what>', 'ERC what')
    .option('--json', 'print {"bid","uuid","created"}')
    .action(async (payload: string, flags: SubmitFlags) => {
      let payloadUrl = payload;
      // A clamped Priority or an unknown NotificationFormat is worth a warning on stderr.
      const log = createLogger('warn', pino.destination({ fd: 2, sync: true }));
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
      const zk = await connectForCommand(ctx.config, ctx.zkFlag());
      try {
        const queue = commandQueueContext(zk);
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
