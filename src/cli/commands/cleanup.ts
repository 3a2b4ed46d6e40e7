import type { Command } from 'commander';
import type { CleanupReport } from '../../admin/cleanup.js';
import type { LeftoverWorkDir } from '../../steps/workdir/sweep.js';
import type { CliContext } from '../context.js';
import { openQueue } from '../lazy.js';
import { durationFlag } from '../options.js';

type Report = CleanupReport & { workDirs: LeftoverWorkDir[] };

function printHuman(report: Report, out: NodeJS.WritableStream, err: NodeJS.WritableStream): void {
  const verb = report.dryRun ? 'would remove' : 'removed';
  for (const batch of report.batches) {
    out.write(
      `${verb} batch ${batch.bid} (${batch.status} ${batch.lastModified}, ${batch.jobs.length} jobs)\n`,
    );
  }
  for (const id of report.orphans) out.write(`${verb} orphan id node ${id}\n`);
  for (const path of report.danglingRefs) out.write(`${verb} dangling ref ${path}\n`);
  for (const uuid of report.danglingUuids) out.write(`${verb} dangling uuid entry ${uuid}\n`);
  for (const dir of report.workDirs) out.write(`${verb} working directory ${dir.dir} (${dir.reason})\n`);
  for (const skip of report.skipped) out.write(`kept ${skip.item}: ${skip.reason}\n`);
  const total =
    report.batches.length +
    report.orphans.length +
    report.danglingRefs.length +
    report.danglingUuids.length +
    report.workDirs.length;
  err.write(total === 0 ? 'nothing to clean up\n' : `${verb} ${total} items\n`);
}

/** What the audit log keeps of a cleanup: what it removed, counted (the first batches named). */
function cleanupCounts(report: CleanupReport): Record<string, unknown> {
  return {
    batches: report.batches.length,
    jobs: report.batches.reduce((n, b) => n + b.jobs.length, 0),
    orphans: report.orphans.length,
    danglingRefs: report.danglingRefs.length,
    removed: report.batches.slice(0, 100).map((b) => b.bid),
  };
}

/** `mrtq cleanup [--retention 7d] [--orphan-grace 10m] [--dry-run] [--json]`. */
export function registerCleanup(program: Command, ctx: CliContext): void {
  program
    .command('cleanup')
    .description(
      'remove completed and deleted batches older than the retention, with their jobs, crash leftovers, and working directories of jobs that are done or gone',
    )
    .addOption(
      durationFlag(
        '--retention <duration>',
        'keep batches last modified within this (e.g. 7d, 12h, 30m)',
        7 * 86_400_000,
      ),
    )
    .addOption(
      durationFlag(
        '--orphan-grace <duration>',
        'keep empty id nodes and dangling refs younger than this',
        10 * 60_000,
      ),
    )
    .option('--dry-run', 'report what would be removed, remove nothing')
    .option('--json', 'print the report as one JSON object')
    .action(async (opts: { retention: number; orphanGrace: number; dryRun?: boolean; json?: boolean }) => {
      const [{ cleanup }, { findLeftoverWorkDirs, removeLeftoverWorkDirs }] = await Promise.all([
        import('../../admin/cleanup.js'),
        import('../../steps/workdir/sweep.js'),
      ]);
      const { zk: client, queue } = await openQueue(ctx);
      try {
        const dryRun = opts.dryRun ?? false;
        const run = () =>
          cleanup(queue, { retentionMs: opts.retention, orphanGraceMs: opts.orphanGrace, dryRun });
        const { audited } = await import('../audit.js');
        const what = {
          action: 'cleanup',
          detail: { retentionMs: opts.retention, orphanGraceMs: opts.orphanGrace },
        };
        const tree = dryRun
          ? await run()
          : await audited(ctx.config, queue, what, run, { detail: cleanupCounts });
        // After the tree: directories of the batches it just removed are gone-job leftovers now.
        const sweep = { workRoot: ctx.config.ingest.workRoot, graceMs: opts.orphanGrace };
        const workDirs = await (dryRun ? findLeftoverWorkDirs : removeLeftoverWorkDirs)(queue, sweep);
        const report: Report = { ...tree, workDirs };
        if (opts.json) ctx.stdout.write(JSON.stringify(report) + '\n');
        else printHuman(report, ctx.stdout, ctx.stderr);
      } finally {
        await client.close();
      }
    });
}
