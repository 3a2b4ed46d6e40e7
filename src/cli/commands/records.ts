import type { Command } from 'commander';
import type { AuditEntry } from '../../audit/entry.js';
import type { TimelineEvent } from '../../history/reader.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { table } from '../table.js';

interface AuditFlags {
  item?: string;
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
  limit: string;
  json?: boolean;
}

async function momentOf(text: string | undefined, flag: string): Promise<Date | undefined> {
  if (text === undefined) return undefined;
  const { parseMoment } = await import('../../config/duration.js');
  const at = parseMoment(text);
  if (!at) throw new CliError(`${flag} must be an ISO 8601 time or a duration like 7d`, ExitCode.usage);
  return at;
}

function auditRow(e: AuditEntry): string[] {
  const change =
    e.before !== undefined || e.after !== undefined ? `${e.before ?? ''} → ${e.after ?? ''}` : '';
  const outcome = e.outcome === 'done' ? 'done' : `${e.outcome}: ${e.error ?? ''}`;
  return [
    e.at,
    `${e.actor.name} (${e.actor.via}${e.actor.role ? `, ${e.actor.role}` : ''})`,
    e.action,
    e.item ?? '',
    change,
    outcome,
    e.reason ?? '',
  ];
}

/** One line of a timeline, as `mrtq show --history` prints it. */
export function timelineLine(e: TimelineEvent): string {
  if (e.type === 'operator') {
    const change = e.after !== undefined ? ` ${e.before ?? '?'} → ${e.after}` : '';
    const why = e.reason ? ` because "${e.reason}"` : '';
    return `${e.at}  operator  ${e.action}${change} by ${e.actor.name} (${e.actor.via})${why}: ${e.outcome}${e.error ? ` (${e.error})` : ''}`;
  }
  const took = e.ms !== undefined ? ` in ${e.ms} ms` : '';
  const stayed = e.inStateMs !== undefined ? `, ${Math.round(e.inStateMs / 1000)} s in ${e.state}` : '';
  const what =
    e.outcome === 'committed'
      ? `${e.state} → ${e.to ?? '?'} (${e.event ?? ''})`
      : `${e.state}: ended without a commit (${e.reason ?? ''})`;
  const failure = e.detail?.failure as { class?: string; code?: string } | undefined;
  const cls = failure ? ` [${failure.class} ${failure.code}]` : '';
  return `${e.at}  step      ${what}${took}${stayed} on ${e.engine}${cls}${e.message ? `: ${e.message}` : ''}`;
}

/** `mrtq audit`: the audit log of operator actions, merged from every process's file. */
export function registerRecords(program: Command, ctx: CliContext): void {
  program
    .command('audit')
    .description('the audit log: who did what to which item, why, when, before and after, and the outcome')
    .option(
      '--item <id>',
      'only this item (jid, bid, queue:<name>, collection:<mnemonic>…); a batch includes its jobs',
    )
    .option('--actor <name>', 'only this credential or person')
    .option('--action <action>', 'only this action ("requeue job", "bulk delete"…)')
    .option('--since <when>', 'from this time (ISO 8601) or this long ago (7d, 1h)')
    .option('--until <when>', 'up to this time or this long ago')
    .option('--limit <n>', 'the most recent n', '200')
    .option('--json', 'print the lines as JSON lines')
    .action(async (flags: AuditFlags) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new CliError('--limit must be a whole number of at least 1', ExitCode.usage);
      const [{ cliAuditLog }, { createLogger }] = await Promise.all([
        import('../audit.js'),
        import('../../logger.js'),
      ]);
      const log = cliAuditLog(ctx.config, { log: createLogger({ level: 'warn', fd: 2 }) });
      const read = await log.query({
        item: flags.item,
        actor: flags.actor,
        action: flags.action,
        since: await momentOf(flags.since, '--since'),
        until: await momentOf(flags.until, '--until'),
        limit,
      });
      if (flags.json) for (const entry of read.entries) ctx.stdout.write(`${JSON.stringify(entry)}\n`);
      else if (read.entries.length > 0)
        ctx.stdout.write(
          table(['AT', 'WHO', 'ACTION', 'ITEM', 'STATE', 'OUTCOME', 'REASON'], read.entries.map(auditRow)),
        );
      else ctx.stderr.write('no audit lines match\n');
      if (read.truncated) ctx.stderr.write(`only the most recent ${limit} shown (--limit)\n`);
      if (read.unreadable > 0) ctx.stderr.write(`${read.unreadable} unreadable lines passed over\n`);
    });
}
