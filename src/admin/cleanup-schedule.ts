import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { cleanup, type CleanupReport } from './cleanup.js';
import type { QueueContext } from '../queue/tree/context.js';
import { createLockNode, releaseEventually } from '../queue/locks/lock.js';
import { LOCKS } from '../queue/tree/paths.js';
import { removeLeftoverWorkDirs } from '../steps/workdir/sweep.js';
import type { CleanupOutcome } from '../telemetry/engine-metrics.js';

/** The lock one engine of many holds while it runs a scheduled cleanup (ephemeral, taken per run). */
export const CLEANUP_LOCK = `${LOCKS}/cleanup`;

/** When and what a serving process cleans up. */
export interface CleanupScheduleOptions {
  /** Time between runs, ms; the first run comes one interval after start. 0: no schedule. */
  intervalMs: number;
  /** Completed and deleted batches last modified longer ago than this go (as `mrtq cleanup --retention`). */
  retentionMs: number;
  /** This host's working directories (`<workRoot>/<bid>/<jid>`). */
  workRoot: string;
  /** Crash leftovers younger than this stay (default: cleanup's, 10 min). */
  orphanGraceMs?: number;
}

export interface CleanupScheduleDeps {
  queue: QueueContext;
  metrics: { cleanupRun(outcome: CleanupOutcome, seconds: number, removed?: Record<string, number>): void };
  log: Logger;
}

/** A running schedule: `runNow` runs once at once (what the timer does), `stop` ends it. */
export interface CleanupSchedule {
  runNow(): Promise<CleanupOutcome>;
  stop(): Promise<void>;
}

/** What a run removed, by the kind the metrics count. */
function removedCounts(report: CleanupReport, workdirs: number): Record<string, number> {
  return {
    batches: report.batches.length,
    jobs: report.batches.reduce((sum, batch) => sum + batch.jobs.length, 0),
    orphans: report.orphans.length,
    refs: report.danglingRefs.length,
    uuids: report.danglingUuids.length,
    workdirs,
  };
}

/**
 * The working directories of the batches this run removed (their jobs are gone with them, none
 * ran: cleanup removes only batches with no running or locked job), then any other leftovers
 * older than the grace. Other hosts' directories of those batches are theirs to sweep
 * (src/steps/workdir/sweep.ts, every ten minutes).
 */
async function removeWorkDirs(report: CleanupReport, options: CleanupScheduleOptions, queue: QueueContext) {
  for (const { bid } of report.batches)
    await rm(join(options.workRoot, bid), { recursive: true, force: true });
  const leftovers = await removeLeftoverWorkDirs(queue, {
    workRoot: options.workRoot,
    graceMs: options.orphanGraceMs,
  });
  return report.batches.length + leftovers.length;
}

/**
 * Runs cleanup (src/admin/cleanup.ts, what `mrtq cleanup` does) every `intervalMs`, as Merritt's
 * ingest does every hour. Of many engines on one tree, only the one that takes the ephemeral
 * {@link CLEANUP_LOCK} runs; the others count the run as `locked`. Runs never overlap in one
 * process (the next is scheduled when one ends). Each run logs one line with what it removed.
 */
export function startCleanupSchedule(
  deps: CleanupScheduleDeps,
  options: CleanupScheduleOptions,
): CleanupSchedule {
  const log = deps.log.child({ component: 'cleanup' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<CleanupOutcome> | undefined;
  let stopped = false;

  const runOnce = async (): Promise<CleanupOutcome> => {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    try {
      const attempt = await createLockNode(deps.queue, CLEANUP_LOCK);
      if (!attempt.held) {
        deps.metrics.cleanupRun('locked', seconds());
        log.info({ lock: CLEANUP_LOCK }, 'scheduled cleanup skipped: another engine is running it');
        return 'locked';
      }
      try {
        const report = await cleanup(deps.queue, {
          retentionMs: options.retentionMs,
          orphanGraceMs: options.orphanGraceMs,
        });
        const removed = removedCounts(report, await removeWorkDirs(report, options, deps.queue));
        deps.metrics.cleanupRun('done', seconds(), removed);
        const durationMs = Math.round(seconds() * 1000);
        log.info({ removed, kept: report.skipped.length, durationMs }, 'scheduled cleanup done');
        return 'done';
      } finally {
        await releaseEventually(deps.queue, attempt.lock);
      }
    } catch (err) {
      deps.metrics.cleanupRun('failed', seconds());
      log.warn({ err }, 'scheduled cleanup failed; tried again at the next run');
      return 'failed';
    }
  };

  const runNow = (): Promise<CleanupOutcome> => {
    running ??= runOnce().finally(() => (running = undefined));
    return running;
  };
  const schedule = (): void => {
    if (stopped || options.intervalMs <= 0) return;
    timer = setTimeout(() => void runNow().then(schedule), options.intervalMs);
    timer.unref();
  };
  schedule();
  if (options.intervalMs > 0)
    log.info({ intervalMs: options.intervalMs, retentionMs: options.retentionMs }, 'cleanup scheduled');
  return {
    runNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
