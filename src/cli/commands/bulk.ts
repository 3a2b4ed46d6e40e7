import type { Command } from 'commander';
import { BULK_ACTIONS, isBulkAction } from '../../admin/bulk/actions.js';
import type { BulkFilter } from '../../admin/bulk/filter.js';
import type { BulkReport } from '../../admin/bulk/outcome.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { withQueue } from '../lazy.js';
import { table } from '../table.js';

interface BulkFlags extends BulkFilter {
  yes?: boolean;
  reason?: string;
  json?: boolean;
}

function summaryLine(report: BulkReport): string {
  const { action, counts, refusedBy, states } = report;
  const why = Object.entries(refusedBy)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  const refused = counts.refused > 0 ? `, ${counts.refused} refused (${why})` : '';
  const unreadable = counts.unreadable > 0 ? `; ${counts.unreadable} unreadable jobs not checked` : '';
  const shown = report.truncated ? `; the first ${report.items.length} listed` : '';
  const head = `${action} of jobs in ${states.join(', ')}: ${counts.matched} matched`;
  if (report.dryRun)
    return `dry run: ${head}, ${counts.would} would change${refused}${unreadable}${shown}; nothing was changed (--yes does it)\n`;
  return `${head}, ${counts.done} done${refused}${unreadable}${shown}\n`;
}

function rows(report: BulkReport): string[][] {
  return report.items.map((item) =>
    item.outcome === 'refused'
      ? [item.jid, item.bid ?? '', item.from ?? '', 'refused', `${item.error}: ${item.message}`]
      : [item.jid, item.bid, item.from, item.outcome, item.to],
  );
}

/** `mrtq bulk <action>`: an operator action on every job matching a filter; a dry run without --yes. */
export function registerBulk(program: Command, ctx: CliContext): void {
  program
    .command('bulk')
    .description(
      'requeue, delete, release or hold every job matching a filter, each checked by the lifecycle; shows what it would do unless --yes',
    )
    .argument('<action>', BULK_ACTIONS.join('|'))
    .option('--batch <bid>', "only this batch's jobs")
    .option('--collection <mnemonic>', 'only jobs of this collection')
    .option('--profile <name>', 'only jobs of this profile')
    .option('--state <state>', 'only jobs in this state (default: every state the action applies to)')
    .option('--yes', 'do it (without: a dry run that changes nothing)')
    .option('--reason <text>', 'why: kept in the audit log (required to delete for real)')
    .option('--json', 'print the report as JSON: {"counts","refusedBy","items",…}')
    .action(async (action: string, flags: BulkFlags) => {
      if (!isBulkAction(action))
        throw new CliError(
          `unknown bulk action "${action}" (one of: ${BULK_ACTIONS.join(', ')})`,
          ExitCode.usage,
        );
      const { batch, collection, profile, state } = flags;
      const filter: BulkFilter = { batch, collection, profile, state };
      const [
        { runBulk },
        { audited, cliActor, cliAuditLog, requireReason },
        { bulkAuditRecord },
        { randomUUID },
      ] = await Promise.all([
        import('../../admin/bulk/run.js'),
        import('../audit.js'),
        import('../../admin/bulk/audit.js'),
        import('node:crypto'),
      ]);
      const dryRun = !flags.yes;
      const what = { action: `bulk ${action}`, reason: flags.reason, detail: { filter } };
      if (!dryRun) requireReason(what);
      const report = await withQueue(ctx, async (queue) => {
        if (dryRun) return runBulk(queue, action, filter, { dryRun });
        // One line for the run, one for each job, tied by the request id.
        const request = randomUUID();
        const log = cliAuditLog(ctx.config, queue);
        const base = { actor: cliActor(), action: what.action, reason: flags.reason, request };
        try {
          return await audited(ctx.config, queue, { ...what, detail: { filter, request } }, () =>
            runBulk(queue, action, filter, {
              dryRun,
              onItem: (item) => log.record(bulkAuditRecord(item, base)),
            }),
          );
        } finally {
          await log.close();
        }
      });
      if (flags.json) ctx.stdout.write(`${JSON.stringify(report)}\n`);
      else if (report.items.length > 0)
        ctx.stdout.write(table(['JOB', 'BATCH', 'FROM', 'OUTCOME', 'TO / WHY'], rows(report)));
      ctx.stderr.write(summaryLine(report));
      if (report.counts.refused > 0) process.exitCode = ExitCode.problems;
    });
}
