import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
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
export function registerSubmit(program: Command, ctx: CliContext): void {
  program
    .command('submit')
    .description('queue a batch for the payload URL and print its batch id')
    .argument('<payload-url>', 'the payload (with the simulated steps: sim:<number of jobs>)')
    .requiredOption('--profile <name>', 'ingest profile')
    .option('--submitter <who>', 'who submits', 'mrtq')
    .option(
      '--type <type>',
      'file, container, object-manifest, manifest-of-manifests, manifest-of-containers',
      'file',
    )
    .option('--collection <mnemonic>', "collection the batch belongs to (default: the profile's)")
    .option('--uuid <uuid>', 'batch uuid; submitting the same uuid twice returns the first batch')
    .option('--title <erc_what>', 'ERC what')
    .option('--json', 'print {"bid","uuid","created"}')
    .action(async (payloadUrl: string, flags: SubmitFlags) => {
      const profiles = await loadProfiles(ctx.config.ingest.profilesDir);
      if (!profiles.names().includes(flags.profile)) {
        const known = profiles.names().join(', ') || 'none';
        throw new CliError(
          `unknown profile "${flags.profile}" (known in ${ctx.config.ingest.profilesDir}: ${known})`,
          ExitCode.usage,
        );
      }
      const collection = flags.collection ?? profiles.getProfile(flags.profile).collection;
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
