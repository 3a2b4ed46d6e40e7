import type { Command } from 'commander';
import type { AccessFilter } from '../../views/listing/access.js';
import { ACCESS_QUEUE_NAMES, accessStatusFilterValues } from '../../queue/access/names.js';
import type { AdminOptions } from '../../admin/lock.js';
import type { QueueContext } from '../../queue/tree/context.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { lazy, withQueue } from '../lazy.js';
import { durationFlag, nonNegative } from '../options.js';
import { table } from '../table.js';

function oneOf<T extends string>(what: string, allowed: readonly string[]) {
  return (value: string): T => {
    if (!allowed.includes(value))
      throw new CliError(`unknown ${what} "${value}" (one of: ${allowed.join(', ')})`, ExitCode.usage);
    return value as T;
  };
}

const adminAccess = () => import('../../admin/access.js');
const listing = () => import('../../views/listing/access.js');

type Action = (queue: QueueContext, ref: string, options: AdminOptions) => Promise<{ status: string }>;

function requestAction(access: Command, ctx: CliContext, name: string, help: string, action: Action): void {
  access
    .command(name)
    .description(help)
    .argument('<request>', 'the request: <small|large>/qidN, or qidN when only one queue has it')
    .option('--force', 'break a lock another session holds (for a stale lock; needs --reason)')
    .option('--reason <text>', 'why: kept in the audit log (required with --force)')
    .option('--json', 'print {"id","status"}')
    .action(async (ref: string, flags: { force?: boolean; reason?: string; json?: boolean }) => {
      const { audited } = await import('../audit.js');
      const what = { action: `${name} access request`, item: `access:${ref}`, reason: flags.reason };
      const { status } = await withQueue(ctx, (q) =>
        audited(ctx.config, q, what, () => action(q, ref, { force: flags.force, reason: flags.reason })),
      );
      ctx.stdout.write(flags.json ? `${JSON.stringify({ id: ref, status })}\n` : `${ref} ${status}\n`);
    });
}

/**
 * `mrtq access list|show|requeue|delete|clean`: the access (assembly) queues, with mrt-admin's
 * actions on them, each checked by the access machine.
 */
export function registerAccess(program: Command, ctx: CliContext): void {
  const access = program.command('access').description('list and manage access (assembly) requests');
  access
    .command('list')
    .description('list access requests, oldest first in each queue')
    .option(
      '--queue <queue>',
      `only this queue (${ACCESS_QUEUE_NAMES.join(', ')})`,
      oneOf('queue', ACCESS_QUEUE_NAMES),
    )
    .option(
      '--status <status>',
      `only this status (${accessStatusFilterValues.join(', ')})`,
      oneOf('status', accessStatusFilterValues),
    )
    .option('--offset <n>', 'skip this many', nonNegative('--offset'), 0)
    .option('--limit <n>', 'at most this many', nonNegative('--limit'), 50)
    .option('--json', 'print {"items","total"}')
    .action(async (flags: AccessFilter & { offset: number; limit: number; json?: boolean }) => {
      const filter: AccessFilter = { queue: flags.queue, status: flags.status };
      const { listAccess } = await listing();
      const page = await withQueue(ctx, (q) => listAccess(q, filter, flags));
      if (flags.json) return void ctx.stdout.write(`${JSON.stringify(page)}\n`);
      const rows = page.items.map((r) => [
        `${r.queue}/${r.qid}`,
        (r.rawStatus ? `${r.status} (${r.rawStatus})` : r.status) + (r.locked ? '*' : ''),
        typeof r.token.token === 'string' ? r.token.token : '',
        JSON.stringify(r.token['cloud-content-byte'] ?? ''),
        r.lastModified,
        r.message ?? '',
      ]);
      ctx.stdout.write(table(['REQUEST', 'STATUS', 'TOKEN', 'BYTES', 'MODIFIED', 'MESSAGE'], rows));
      ctx.stderr.write(`${page.items.length} of ${page.total} (* = locked)\n`);
    });
  access
    .command('show')
    .description('show one access request in full, as JSON')
    .argument('<request>', '<small|large>/qidN, or qidN')
    .action(async (ref: string) => {
      const { showAccess } = await listing();
      const item = await withQueue(ctx, (q) => showAccess(q, ref));
      ctx.stdout.write(`${JSON.stringify(item, null, 2)}\n`);
    });
  requestAction(
    access,
    ctx,
    'requeue',
    'put a failed request back to pending (it is assembled again)',
    lazy(adminAccess, 'requeueAccess'),
  );
  requestAction(
    access,
    ctx,
    'delete',
    'delete a failed or completed request',
    lazy(adminAccess, 'deleteAccess'),
  );
  access
    .command('clean')
    .description('remove completed and deleted requests older than the retention')
    .addOption(
      durationFlag(
        '--retention <duration>',
        'keep requests modified within this (e.g. 7d, 12h)',
        7 * 86_400_000,
      ),
    )
    .option('--dry-run', 'report what would be removed, remove nothing')
    .option('--json', 'print the report as one JSON object')
    .action(async (flags: { retention: number; dryRun?: boolean; json?: boolean }) => {
      const { cleanupAccess } = await adminAccess();
      const report = await withQueue(ctx, (q) =>
        cleanupAccess(q, { retentionMs: flags.retention, dryRun: flags.dryRun }),
      );
      if (flags.json) ctx.stdout.write(`${JSON.stringify(report)}\n`);
      else {
        const verb = report.dryRun ? 'would remove' : 'removed';
        for (const r of report.removed)
          ctx.stdout.write(`${verb} ${r.queue}/${r.qid} (${r.status}, ${r.lastModified})\n`);
        ctx.stdout.write(`${verb} ${report.removed.length} access requests\n`);
      }
      for (const skip of report.skipped) ctx.stderr.write(`skipped ${skip.item}: ${skip.reason}\n`);
    });
}
