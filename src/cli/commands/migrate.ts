import type { Command } from 'commander';
import type { MigrationReport } from '../../admin/legacy/migrate.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { openQueue } from '../lazy.js';

function printHuman(report: MigrationReport, out: NodeJS.WritableStream, err: NodeJS.WritableStream): void {
  let jobs = 0;
  for (const batch of report.batches) {
    const id = batch.bid ? `${batch.bid} (${batch.uuid})` : batch.uuid;
    if (batch.outcome === 'exists') out.write(`batch ${id}: migrated before, nothing to create\n`);
    else if (batch.outcome === 'locked') out.write(`batch ${id}: locked by another session; run again\n`);
    else {
      const verb = batch.outcome === 'created' ? 'created' : 'would create';
      out.write(`${verb} batch ${id} with ${batch.jobs.length} jobs\n`);
      for (const job of batch.jobs)
        out.write(`  ${verb} ${job.jid ? `${job.jid} ` : ''}(${job.state}) from /ingest/${job.node}\n`);
      jobs += batch.jobs.length;
    }
  }
  for (const skip of report.skipped) out.write(`kept /ingest/${skip.node}: ${skip.reason}\n`);
  for (const bad of report.unreadable) out.write(`unreadable /ingest/${bad.node}: ${bad.reason}\n`);
  const made = report.batches.filter((b) => b.outcome === 'created' || b.outcome === 'would-create').length;
  const verb = report.dryRun ? 'would create' : 'created';
  err.write(
    `${verb} ${made} batches and ${jobs} jobs; ${report.skipped.length} records kept, ` +
      `${report.unreadable.length} unreadable (legacy nodes are left in place)\n`,
  );
}

/** `mrtq migrate-legacy [--queue-dir D] [--dry-run] [--json]`. */
export function registerMigrate(program: Command, ctx: CliContext): void {
  program
    .command('migrate-legacy')
    .description(
      "turn the records of Merritt's pre-2024 ingest queue (/ingest/mrtQ-…) into batches and jobs; " +
        'a second run creates nothing; legacy nodes are left in place',
    )
    .option('--queue-dir <dir>', "the old ingest's queue directory, where records name their files")
    .option('--dry-run', 'report what would be created, create nothing')
    .option('--json', 'print the report as one JSON object')
    .action(async (opts: { queueDir?: string; dryRun?: boolean; json?: boolean }) => {
      const { migrateLegacyQueue } = await import('../../admin/legacy/migrate.js');
      const { zk: client, queue } = await openQueue(ctx);
      try {
        const run = () => migrateLegacyQueue(queue, { dryRun: opts.dryRun, queueDir: opts.queueDir });
        const { audited } = await import('../audit.js');
        const what = { action: 'migrate legacy queue', detail: { queueDir: opts.queueDir } };
        const report = opts.dryRun
          ? await run()
          : await audited(ctx.config, queue, what, run, {
              detail: (r) => ({ batches: r.batches.length, unreadable: r.unreadable.length }),
            });
        if (opts.json) ctx.stdout.write(JSON.stringify(report) + '\n');
        else printHuman(report, ctx.stdout, ctx.stderr);
        const problems = report.unreadable.length > 0 || report.batches.some((b) => b.outcome === 'locked');
        if (problems) process.exitCode = ExitCode.problems;
      } finally {
        await client.close();
      }
    });
}
