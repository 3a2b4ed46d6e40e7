import type { Command } from 'commander';
import { batchStates, merrittJobLifecycle, type BatchState } from '../../../machines/index.js';
import { listBatches, listJobs, streamBatches, streamJobs } from '../../queue/listing.js';
import { SearchIndex } from '../../queue/search-index.js';
import { showByKey } from '../../queue/search.js';
import { withQueue } from '../connection.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { table } from '../table.js';
import { listOptions, pageFooter, streamLimit, writeNdjson, type ListFlags } from '../list-output.js';

function oneOf<T extends string>(what: string, allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new CliError(`unknown ${what} "${value}" (one of: ${allowed.join(', ')})`, ExitCode.usage);
    }
    return value as T;
  };
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`expected a whole number, got "${value}"`, ExitCode.usage);
  return n;
}

/** `mrtq batches`, `mrtq jobs`, `mrtq show`: the queue as tables, or JSON for scripts. */
export function registerListing(program: Command, ctx: CliContext): void {
  // The command line runs Merritt's job lifecycle.
  const { states } = merrittJobLifecycle;
  const batches = program
    .command('batches')
    .description('list batches, newest first')
    .option('--status <status>', `only this status (${batchStates.join(', ')})`, oneOf('status', batchStates))
    .option('--profile <name>', 'only this profile')
    .option('--submitter <who>', 'only this submitter')
    .option('--offset <n>', 'skip this many', count, 0)
    .option('--limit <n>', 'at most this many', count, 50);
  listOptions(batches, 'batch').action(
    async (
      flags: ListFlags & { status?: BatchState; profile?: string; submitter?: string },
      cmd: Command,
    ) => {
      const filter = { status: flags.status, profile: flags.profile, submitter: flags.submitter };
      if (flags.ndjson) {
        const limit = streamLimit(cmd, flags.limit);
        return void (await withQueue(ctx, (q) =>
          writeNdjson(streamBatches(q, filter, flags.after), ctx.stdout, limit),
        ));
      }
      const page = await withQueue(ctx, (q) => listBatches(q, filter, flags));
      if (flags.json) return void ctx.stdout.write(`${JSON.stringify(page)}\n`);
      const rows = page.items.map((b) => [
        b.bid,
        b.status,
        b.profile,
        b.submitter,
        `${b.counts.completed}/${b.counts.failed}/${b.counts.processing}/${b.counts.deleted}`,
        b.lastModified,
        b.message ?? '',
      ]);
      ctx.stdout.write(
        table(
          ['BATCH', 'STATUS', 'PROFILE', 'SUBMITTER', 'DONE/FAILED/RUNNING/DELETED', 'MODIFIED', 'MESSAGE'],
          rows,
        ),
      );
      ctx.stderr.write(pageFooter(page));
    },
  );

  const jobs = program
    .command('jobs')
    .description('list jobs (in priority order within a state, else newest first)')
    .option('--state <state>', `only this state (${states.join(', ')})`, oneOf('state', states))
    .option('--batch <bid>', 'only the jobs of this batch')
    .option('--collection <mnemonic>', 'only this collection')
    .option('--offset <n>', 'skip this many', count, 0)
    .option('--limit <n>', 'at most this many', count, 50);
  listOptions(jobs, 'job').action(
    async (flags: ListFlags & { state?: string; batch?: string; collection?: string }, cmd: Command) => {
      const filter = { state: flags.state, batch: flags.batch, collection: flags.collection };
      if (flags.ndjson) {
        const limit = streamLimit(cmd, flags.limit);
        return void (await withQueue(ctx, (q) =>
          writeNdjson(streamJobs(q, filter, flags.after), ctx.stdout, limit),
        ));
      }
      const page = await withQueue(ctx, (q) => listJobs(q, filter, flags));
      if (flags.json) return void ctx.stdout.write(`${JSON.stringify(page)}\n`);
      const rows = page.items.map((j) => [
        j.jid,
        j.bid,
        (j.rawStatus ? `${j.status} (${j.rawStatus})` : j.status) + (j.locked ? '*' : ''),
        String(j.priority).padStart(2, '0'),
        String(j.retryCount),
        j.lastSuccessfulStatus ?? '-',
        j.message ?? '',
      ]);
      ctx.stdout.write(table(['JOB', 'BATCH', 'STATE', 'PRIO', 'RETRIES', 'LAST OK', 'MESSAGE'], rows));
      ctx.stderr.write(pageFooter(page, ' (* = locked)'));
    },
  );

  program
    .command('show')
    .description(
      'show one batch or job in full, as JSON, by bid, jid, batch uuid, ARK, local id or title prefix (several alike: lists them, exit 1)',
    )
    .argument('<key>', 'bid, jid, batch uuid, ARK, local id or the start of a title')
    .action(async (key: string) => {
      // An ARK, local id or title has no index in ZooKeeper: a one-shot index reads the jobs once.
      const found = await withQueue(ctx, (q) => showByKey(q, new SearchIndex(q, 0), key));
      if ('item' in found) return void ctx.stdout.write(`${JSON.stringify(found.item, null, 2)}\n`);
      ctx.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
      ctx.stderr.write(`${found.total} items match "${key}"; show one by its id\n`);
      process.exitCode = ExitCode.problems;
    });
}
