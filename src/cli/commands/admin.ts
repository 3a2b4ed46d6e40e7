import type { Command } from 'commander';
import type { RequeueOptions } from '../../admin/jobs.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { QUEUE_NAMES, isBatchId, isJobId, type QueueName } from '../../queue/tree/paths.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { lazy, withQueue } from '../lazy.js';
import { registerAccess } from './access.js';

// The queue's operations, loaded when a command runs.
const jobs = () => import('../../admin/jobs.js');
const batches = () => import('../../admin/batches.js');
const queueLocks = () => import('../../queue/locks/queue-pause.js');
const auditing = () => import('../audit.js');

interface ActionFlags {
  force?: boolean;
  reason?: string;
  json?: boolean;
  to?: string;
}

type Action = (queue: QueueContext, id: string, options: RequeueOptions) => Promise<{ status: string }>;

function itemAction(
  program: Command,
  ctx: CliContext,
  name: string,
  help: string,
  actions: { job?: Action; batch?: Action },
  extra?: { flags: string; help: string },
): void {
  const kinds = [actions.job ? 'jid' : undefined, actions.batch ? 'bid' : undefined]
    .filter(Boolean)
    .join('|');
  const command = program.command(name).description(help).argument('<id>', `the ${kinds} to act on`);
  if (extra) command.option(extra.flags, extra.help);
  command
    .option('--force', 'break a lock another session holds (for a stale lock; needs --reason)')
    .option('--reason <text>', 'why: kept in the audit log (required for delete and fail, and with --force)')
    .option('--json', 'print {"id","status"}')
    .action(async (id: string, flags: ActionFlags) => {
      const action = isJobId(id) ? actions.job : isBatchId(id) ? actions.batch : undefined;
      if (!action)
        throw new CliError(`"${id}" is not a ${kinds} that \`${name}\` applies to`, ExitCode.usage);
      const options = { force: flags.force, reason: flags.reason, to: flags.to };
      const what = {
        action: `${name} ${isJobId(id) ? 'job' : 'batch'}`,
        item: id,
        reason: flags.reason,
        ...(flags.to !== undefined || flags.force ? { detail: { to: flags.to, force: flags.force } } : {}),
      };
      const { audited, requireReason } = await auditing();
      requireReason(what);
      const { status } = await withQueue(ctx, (queue) =>
        audited(ctx.config, queue, what, () => action(queue, id, options)),
      );
      ctx.stdout.write(flags.json ? `${JSON.stringify({ id, status })}\n` : `${id} ${status}\n`);
    });
}

function queueName(value: string): QueueName {
  if (!(QUEUE_NAMES as readonly string[]).includes(value)) {
    throw new CliError(`unknown queue "${value}" (queues: ${QUEUE_NAMES.join(', ')})`, ExitCode.usage);
  }
  return value as QueueName;
}

/** Operator commands: hold, release, requeue, delete, update-report, fail, retry, pause, resume, collection, access. */
export function registerAdmin(program: Command, ctx: CliContext): void {
  itemAction(program, ctx, 'hold', 'hold a pending job or batch', {
    job: lazy(jobs, 'holdJob'),
    batch: lazy(batches, 'holdBatch'),
  });
  itemAction(program, ctx, 'release', 'release a held job or batch (back to pending)', {
    job: lazy(jobs, 'releaseJob'),
    batch: lazy(batches, 'releaseBatch'),
  });
  itemAction(
    program,
    ctx,
    'requeue',
    'resume a failed job after its last successful step',
    { job: lazy(jobs, 'requeueJob') },
    {
      flags: '--to <state>',
      help: 'for a job whose status this lifecycle does not know: the state it goes to (e.g. storing)',
    },
  );
  itemAction(program, ctx, 'delete', 'delete a held or failed job, or a held or failed batch with its jobs', {
    job: lazy(jobs, 'deleteJob'),
    batch: async (queue, id, options) => (await (await batches()).deleteBatch(queue, id, options)).batch,
  });
  itemAction(program, ctx, 'update-report', 'send a failed batch an updated report', {
    batch: lazy(batches, 'updateReport'),
  });
  itemAction(
    program,
    ctx,
    'fail',
    'fail a waiting or working job (its lock is broken; its storage and inventory locks released); --reason becomes its message',
    {
      job: async (queue, id, options) =>
        (await (await jobs()).failJob(queue, id, { reason: options.reason })).job,
    },
  );
  program
    .command('retry')
    .description("run a job's next attempt now: a job waiting to retry after a transient failure")
    .argument('<jid>', 'the job')
    .option('--json', 'print {"id","status","retry"}')
    .action(async (jid: string, flags: { json?: boolean }) => {
      if (!isJobId(jid)) throw new CliError(`"${jid}" is not a jid`, ExitCode.usage);
      const [{ retryJobNow }, { audited }] = await Promise.all([
        import('../../admin/retry-now.js'),
        auditing(),
      ]);
      const { job, retry } = await withQueue(ctx, (q) =>
        audited(ctx.config, q, { action: 'retry job', item: jid }, () => retryJobNow(q, jid)),
      );
      ctx.stdout.write(
        flags.json
          ? `${JSON.stringify({ id: jid, status: job.status, retry })}\n`
          : `${jid} ${job.status}: next attempt now (${retry.failures} of ${retry.limit} so far, last: ${retry.code})\n`,
      );
    });
  registerAccess(program, ctx);

  for (const [name, run, verb] of [
    ['pause', lazy(queueLocks, 'pauseQueue'), 'paused'],
    ['resume', lazy(queueLocks, 'resumeQueue'), 'resumed'],
  ] as const) {
    program
      .command(name)
      .description(`${name} a queue (${QUEUE_NAMES.join(', ')})`)
      .argument('<queue>', 'queue name')
      .action(async (queue: string) => {
        const { audited } = await auditing();
        const changed = await withQueue(ctx, (q) =>
          audited(ctx.config, q, { action: `${name} queue`, item: `queue:${queue}` }, () =>
            run(q, queueName(queue)),
          ),
        );
        ctx.stdout.write(`${queue} ${changed ? verb : `was already ${verb}`}\n`);
      });
  }

  const collection = program.command('collection').description('hold or release a collection');
  collection
    .command('hold')
    .argument('<mnemonic>', 'collection mnemonic')
    .description('put a hold on a collection: its pending batches and jobs go to held')
    .action(async (mnemonic: string) => {
      const [{ holdCollection }, { audited }] = await Promise.all([queueLocks(), auditing()]);
      const what = { action: 'hold collection', item: `collection:${mnemonic}` };
      const changed = await withQueue(ctx, (q) =>
        audited(ctx.config, q, what, () => holdCollection(q, mnemonic)),
      );
      ctx.stdout.write(`${mnemonic} ${changed ? 'held' : 'was already held'}\n`);
    });
  collection
    .command('release')
    .argument('<mnemonic>', 'collection mnemonic')
    .option('--json', 'print what was released')
    .description('clear the hold and release the held jobs and batches of the collection')
    .action(async (mnemonic: string, flags: { json?: boolean }) => {
      const [{ releaseCollection }, { audited }] = await Promise.all([
        import('../../admin/collections.js'),
        auditing(),
      ]);
      const what = { action: 'release collection', item: `collection:${mnemonic}` };
      const released = await withQueue(ctx, (q) =>
        audited(ctx.config, q, what, () => releaseCollection(q, mnemonic)),
      );
      if (flags.json) ctx.stdout.write(`${JSON.stringify(released)}\n`);
      else
        ctx.stdout.write(
          `${mnemonic} released: ${released.jobs.length} jobs, ${released.batches.length} batches\n`,
        );
      for (const failure of released.failed)
        ctx.stderr.write(`not released: ${failure.item}: ${failure.message}\n`);
      if (released.failed.length > 0) process.exitCode = ExitCode.problems;
    });
}
