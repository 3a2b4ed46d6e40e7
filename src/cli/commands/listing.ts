import type { Command } from 'commander';
import { batchStates, merrittJobLifecycle, type BatchState } from '../../../machines/index.js';
import { listBatches, listJobs, showItem } from '../../queue/listing.js';
import { withQueue } from '../connection.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { table } from '../table.js';

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

interface ListFlags {
  json?: boolean;
  offset: number;
  limit: number;
}

/** `mrtq batches`, `mrtq jobs`, `mrtq show`: the queue as tables, or JSON for scripts. */
export function registerListing(program: Command, ctx: CliContext): void {
  // The command line runs Merritt's job lifecycle.
  const { states } = merrittJobLifecycle;
  program
    .command('batches')
    .description('list batches, newest first')
    .option('--status <status>', `only this status (${batchStates.join(', ')})`, oneOf('status', batchStates))
    .option('--profile <name>', 'only this profile')
    .option('--submitter <who>', 'only this submitter')
    .option('--offset <n>', 'skip this many', count, 0)
    .option('--limit <n>', 'at most this many', count, 50)
    .option('--json', 'print {"items","total"}')
    .action(async (flags: ListFlags & { status?: BatchState; profile?: string; submitter?: string }) => {
      const page = await withQueue(ctx, (q) =>
        listBatches(q, { status: flags.status, profile: flags.profile, submitter: flags.submitter }, flags),
      );
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
      ctx.stderr.write(`${page.items.length} of ${page.total}\n`);
    });

  program
    .command('jobs')
    .description('list jobs (in priority order within a state)')
    .option('--state <state>', `only this state (${states.join(', ')})`, oneOf('state', states))
    .option('--batch <bid>', 'only the jobs of this batch')
    .option('--collection <mnemonic>', 'only this collection')
    .option('--offset <n>', 'skip this many', count, 0)
    .option('--limit <n>', 'at most this many', count, 50)
    .option('--json', 'print {"items","total"}')
    .action(async (flags: ListFlags & { state?: string; batch?: string; collection?: string }) => {
      const page = await withQueue(ctx, (q) =>
        listJobs(q, { state: flags.state, batch: flags.batch, collection: flags.collection }, flags),
      );
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
      ctx.stderr.write(`${page.items.length} of ${page.total} (* = locked)\n`);
    });

  program
    .command('show')
    .description('show one batch (bid or uuid) or job (jid) in full, as JSON')
    .argument('<id>', 'bid, jid or batch uuid')
    .action(async (id: string) => {
      const item = await withQueue(ctx, (q) => showItem(q, id));
      ctx.stdout.write(`${JSON.stringify(item, null, 2)}\n`);
    });
}
