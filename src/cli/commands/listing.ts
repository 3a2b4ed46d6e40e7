import type { Command } from 'commander';
import { batchStates, jobStates, type BatchState } from '../../../machines/states.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { withQueue } from '../lazy.js';
import { table } from '../table.js';
import { listOptions, pageFooter, streamLimit, writeNdjson, type ListFlags } from '../list-output.js';
import { SORT_KEYS, SORT_ORDERS, type Sort, type SortKey, type SortOrder } from '../../views/listing/sort.js';

const listing = () => import('../../views/listing/listing.js');

function oneOf<T extends string>(what: string, allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new CliError(`unknown ${what} "${value}" (one of: ${allowed.join(', ')})`, ExitCode.usage);
    }
    return value as T;
  };
}

type SortFlags = { sort?: SortKey; order?: SortOrder; ndjson?: boolean };

/** The page's sort from `--sort`/`--order` (a page of a sorted list; `--ndjson` streams in list order). */
function sortOf(flags: SortFlags): { sort?: Sort } {
  if (!flags.sort) {
    if (flags.order) throw new CliError('--order needs --sort', ExitCode.usage);
    return {};
  }
  if (flags.ndjson)
    throw new CliError('--sort pages a list; --ndjson streams it in list order', ExitCode.usage);
  return { sort: { by: flags.sort, order: flags.order ?? 'asc' } };
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(`expected a whole number, got "${value}"`, ExitCode.usage);
  return n;
}

/** `mrtq batches`, `mrtq jobs`, `mrtq show`: the queue as tables, or JSON for scripts. */
export function registerListing(program: Command, ctx: CliContext): void {
  // The command line runs Merritt's job lifecycle: the states of its table (merrittJobLifecycle's),
  // read without loading the machine.
  const states = jobStates;
  const batches = program
    .command('batches')
    .description('list batches, newest first')
    .option('--status <status>', `only this status (${batchStates.join(', ')})`, oneOf('status', batchStates))
    .option('--profile <name>', 'only this profile')
    .option('--submitter <who>', 'only this submitter')
    .option(
      '--sort <key>',
      'sort by created, updated or state (then --after takes the "next" of a sorted page)',
      oneOf(
        'sort',
        SORT_KEYS.filter((key) => key !== 'priority'),
      ),
    )
    .option('--order <order>', 'with --sort: asc (default) or desc', oneOf('order', SORT_ORDERS))
    .option('--offset <n>', 'skip this many', count, 0)
    .option('--limit <n>', 'at most this many', count, 50);
  listOptions(batches, 'batch').action(
    async (
      flags: ListFlags & SortFlags & { status?: BatchState; profile?: string; submitter?: string },
      cmd: Command,
    ) => {
      const filter = { status: flags.status, profile: flags.profile, submitter: flags.submitter };
      const { listBatches, streamBatches } = await listing();
      if (flags.ndjson) {
        const limit = streamLimit(cmd, flags.limit);
        return void (await withQueue(ctx, (q) =>
          writeNdjson(streamBatches(q, filter, flags.after), ctx.stdout, limit),
        ));
      }
      const sort = sortOf(flags);
      const page = await withQueue(ctx, (q) =>
        listBatches(q, filter, { offset: flags.offset, limit: flags.limit, after: flags.after, ...sort }),
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
      ctx.stderr.write(pageFooter(page));
    },
  );

  const jobs = program
    .command('jobs')
    .description('list jobs (in priority order within a state, else newest first)')
    .option('--state <state>', `only this state (${states.join(', ')})`, oneOf('state', states))
    .option('--batch <bid>', 'only the jobs of this batch')
    .option('--collection <mnemonic>', 'only this collection')
    .option(
      '--sort <key>',
      'sort by created, updated, priority or state (then --after takes the "next" of a sorted page)',
      oneOf('sort', SORT_KEYS),
    )
    .option('--order <order>', 'with --sort: asc (default) or desc', oneOf('order', SORT_ORDERS))
    .option('--offset <n>', 'skip this many', count, 0)
    .option('--limit <n>', 'at most this many', count, 50);
  listOptions(jobs, 'job').action(
    async (
      flags: ListFlags & SortFlags & { state?: string; batch?: string; collection?: string },
      cmd: Command,
    ) => {
      const filter = { state: flags.state, batch: flags.batch, collection: flags.collection };
      const { listJobs, streamJobs } = await listing();
      if (flags.ndjson) {
        const limit = streamLimit(cmd, flags.limit);
        return void (await withQueue(ctx, (q) =>
          writeNdjson(streamJobs(q, filter, flags.after), ctx.stdout, limit),
        ));
      }
      const sort = sortOf(flags);
      const page = await withQueue(ctx, (q) =>
        listJobs(q, filter, { offset: flags.offset, limit: flags.limit, after: flags.after, ...sort }),
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
      ctx.stderr.write(pageFooter(page, ' (* = locked)'));
    },
  );

  program
    .command('show')
    .description(
      'show one batch or job in full, as JSON, by bid, jid, batch uuid, ARK, local id or title prefix (several alike: lists them, exit 1)',
    )
    .argument('<key>', 'bid, jid, batch uuid, ARK, local id or the start of a title')
    .option(
      '--history',
      'its history instead: every step, retry and operator action, oldest first (kept after it is gone)',
    )
    .option('--premis', "a job's history as PREMIS 3 events (XML)")
    .option('--json', 'with --history: the events as JSON lines')
    .action(async (key: string, flags: { history?: boolean; premis?: boolean; json?: boolean }) => {
      if (flags.history || flags.premis) return showHistory(ctx, key, flags);
      // An ARK, local id or title has no index in ZooKeeper: a one-shot index reads the jobs once.
      const [{ JobIndex }, { showByKey }] = await Promise.all([
        import('../../views/job-index/job-index.js'),
        import('../../views/search/search.js'),
      ]);
      const found = await withQueue(ctx, (q) => showByKey(q, new JobIndex(q, 0), key));
      if ('item' in found) return void ctx.stdout.write(`${JSON.stringify(found.item, null, 2)}\n`);
      ctx.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
      ctx.stderr.write(`${found.total} items match "${key}"; show one by its id\n`);
      process.exitCode = ExitCode.problems;
    });
}

/** `mrtq show <id> --history|--premis`: read from the journals, so a job long gone still has one. */
async function showHistory(
  ctx: CliContext,
  key: string,
  flags: { premis?: boolean; json?: boolean },
): Promise<void> {
  const [{ cliHistory }, { createLogger }, { timelineLine }, { isBatchId, isJobId }] = await Promise.all([
    import('../audit.js'),
    import('../../logger.js'),
    import('./records.js'),
    import('../../queue/tree/paths.js'),
  ]);
  if (!isJobId(key) && !(isBatchId(key) && !flags.premis))
    throw new CliError(
      `"${key}" is not a ${flags.premis ? 'jid' : 'jid or bid'}: a history is read by its id`,
      ExitCode.usage,
    );
  const history = await cliHistory(ctx.config, { log: createLogger({ level: 'warn', fd: 2 }) }).of(key);
  if (flags.premis) {
    const [{ premisOf }, { merrittJobLifecycle }] = await Promise.all([
      import('../../history/premis.js'),
      import('../../../machines/index.js'),
    ]);
    const steps = history.events.flatMap((e) => (e.type === 'step' ? [e] : []));
    return void ctx.stdout.write(premisOf(merrittJobLifecycle, key, steps));
  }
  if (history.events.length === 0) {
    ctx.stderr.write(`no history of ${key} in ${ctx.config.records.dir} (or the other records folders)\n`);
    process.exitCode = ExitCode.problems;
  }
  for (const event of history.events)
    ctx.stdout.write(flags.json ? `${JSON.stringify(event)}\n` : `${timelineLine(event)}\n`);
  if (history.truncated) ctx.stderr.write('the oldest events were left out\n');
}
