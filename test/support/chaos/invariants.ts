import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { doctor } from '../../../src/doctor/doctor.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { batchChild } from '../../../src/queue/tree/paths.js';
import { decodeJsonObject } from '../../../src/queue/tree/wire.js';
import { checkLedger, type LedgerFigures, type LedgerLine } from './ledger-check.js';
import type { ChaosProfile } from './profile.js';

/** What a batch of the scenario should end as. */
export interface ExpectedBatch {
  bid: string;
  jobs: number;
  /** The terminal state each job's inputs (and operators) justify; default completed. */
  terminal?: (position: number, jid: string) => 'completed' | 'failed' | 'deleted';
  /** Report commits expected (one per reporting episode); default 1. */
  reports?: number;
}

export interface QueueFigures {
  jobs: number;
  completed: number;
  failed: number;
  deleted: number;
  /** Jobs missing, not terminal, or in a terminal state their inputs do not justify. */
  lost: string[];
  /** Batches whose report commits, or report contents, are not as expected. */
  badReports: string[];
  doctorViolations: string[];
  /** Doctor findings on items the scenario broke on purpose (only with `expectedDoctorItems`). */
  doctorExpected?: number;
}

export interface CheckOptions {
  /**
   * Items (job or batch ids, paths: `DoctorProblem.item`) the scenario wrote broken on purpose:
   * doctor must report each of them, and nothing else.
   */
  expectedDoctorItems?: readonly string[];
}

const TERMINAL = new Set(['completed', 'failed', 'deleted']);

async function readReport(ctx: QueueContext, bid: string) {
  const path = batchChild(bid, 'status-report');
  const { data } = await ctx.zk.getData(path);
  const report = decodeJsonObject(path, data) as {
    successful_jobs?: string[];
    failed_jobs?: string[];
    successful_jobs_omitted?: number;
    failed_jobs_omitted?: number;
  };
  return {
    successful: [...(report.successful_jobs ?? [])].sort(),
    failed: [...(report.failed_jobs ?? [])].sort(),
    successfulOmitted: report.successful_jobs_omitted ?? 0,
    failedOmitted: report.failed_jobs_omitted ?? 0,
  };
}

/**
 * A report's list names exactly `jobs` (sorted): all of them, or, in a report too large for its
 * node, the first of them in order and the number left out.
 */
function listsExactly(listed: readonly string[], omitted: number, jobs: readonly string[]): boolean {
  return listed.length + omitted === jobs.length && listed.every((jid, i) => jid === jobs[i]);
}

/**
 * The queue after a scenario, against what its inputs justify: every job of every batch exists
 * and is in its expected terminal state, every batch is reported the expected number of times
 * with exactly its jobs, and `doctor` finds nothing.
 */
export async function checkQueue(
  ctx: QueueContext,
  batches: readonly ExpectedBatch[],
  ledger: readonly LedgerLine[],
  options: CheckOptions = {},
): Promise<QueueFigures> {
  const figures: QueueFigures = {
    jobs: 0,
    completed: 0,
    failed: 0,
    deleted: 0,
    lost: [],
    badReports: [],
    doctorViolations: [],
  };
  for (const expected of batches) {
    const batch = await loadBatch(ctx, expected.bid);
    if (batch.status !== 'completed' && batch.status !== 'failed')
      figures.lost.push(`${expected.bid} is ${batch.status}`);
    const refs = await listBatchJobs(ctx, expected.bid);
    if (refs.length !== expected.jobs)
      figures.lost.push(`${expected.bid} has ${refs.length} of ${expected.jobs} jobs`);
    const byState = { completed: [] as string[], failed: [] as string[], deleted: [] as string[] };
    for (const { jid } of refs) {
      const job = await loadJob(ctx, jid);
      figures.jobs++;
      const want = expected.terminal?.(job.configuration.manifest_position ?? -1, jid) ?? 'completed';
      if (!TERMINAL.has(job.status)) figures.lost.push(`${jid} is ${job.status}`);
      else if (job.status !== want) figures.lost.push(`${jid} is ${job.status}, its inputs justify ${want}`);
      if (job.status === 'completed' || job.status === 'failed' || job.status === 'deleted') {
        figures[job.status]++;
        byState[job.status].push(jid);
      }
    }
    const reportCommits = ledger.filter(
      (e) => e.kind === 'commit' && e.item === expected.bid && e.event === 'report.done',
    ).length;
    if (reportCommits !== (expected.reports ?? 1))
      figures.badReports.push(
        `${expected.bid} reported ${reportCommits} times, expected ${expected.reports ?? 1}`,
      );
    const report = await readReport(ctx, expected.bid).catch((err: unknown) => {
      figures.badReports.push(`${expected.bid} status report unreadable: ${(err as Error).message}`);
      return undefined;
    });
    if (report) {
      if (
        !listsExactly(report.successful, report.successfulOmitted, byState.completed.sort()) ||
        !listsExactly(report.failed, report.failedOmitted, byState.failed.sort())
      )
        figures.badReports.push(`${expected.bid} report does not list exactly its jobs`);
    }
  }
  // As an operator runs it (`mrtq doctor`): default grace for id nodes of a creation in progress.
  const checked = await doctor(ctx);
  const expected = new Set(options.expectedDoctorItems ?? []);
  figures.doctorViolations = checked.problems
    .filter((p) => !expected.has(p.item))
    .map((p) => `${p.code} ${p.path}: ${p.message}`);
  if (options.expectedDoctorItems) {
    const found = new Set(checked.problems.map((p) => p.item));
    figures.doctorExpected = checked.problems.filter((p) => expected.has(p.item)).length;
    for (const item of expected)
      if (!found.has(item)) figures.doctorViolations.push(`${item}: broken on purpose, but doctor missed it`);
  }
  return figures;
}

/** Every figure of a scenario, printed as one line and kept in reports/chaos.jsonl. */
export interface ScenarioSummary {
  scenario: string;
  profile: ChaosProfile;
  queue: QueueFigures;
  ledger: LedgerFigures;
  /** Scenario-specific counts: kills, failovers, freezes, operator actions… */
  counts: Record<string, number>;
  seconds: number;
}

export function summaryLine(s: ScenarioSummary): string {
  const fields: Record<string, string | number> = {
    profile: s.profile.name,
    seed: s.profile.seed,
    jobs: s.queue.jobs,
    completed: s.queue.completed,
    failed: s.queue.failed,
    deleted: s.queue.deleted,
    ...s.counts,
    steps_rerun: s.ledger.stepsRerun,
    duplicates: s.ledger.duplicates.length,
    runs_after_commit: s.ledger.runsAfterCommit.length,
    lost: s.queue.lost.length,
    bad_reports: s.queue.badReports.length,
    doctor_violations: s.queue.doctorViolations.length,
    ...(s.queue.doctorExpected === undefined ? {} : { doctor_expected: s.queue.doctorExpected }),
    seconds: Math.round(s.seconds * 10) / 10,
  };
  return `chaos ${s.scenario}: ${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
}

/** Prints the summary line (the run's figures) and appends it to reports/chaos.jsonl. */
export function report(summary: ScenarioSummary): string {
  const line = summaryLine(summary);
  console.log(line);
  const dir = join(import.meta.dirname, '..', '..', '..', 'reports');
  mkdirSync(dir, { recursive: true });
  appendFileSync(
    join(dir, 'chaos.jsonl'),
    JSON.stringify({
      at: new Date().toISOString(),
      line,
      ...summary,
      profile: summary.profile.name,
      seed: summary.profile.seed,
    }) + '\n',
  );
  return line;
}

/** The invariants every scenario must keep, as one list of violations (empty when all hold). */
export function violations(summary: ScenarioSummary): string[] {
  return [
    ...summary.queue.lost.map((v) => `lost: ${v}`),
    ...summary.queue.badReports.map((v) => `report: ${v}`),
    ...summary.queue.doctorViolations.map((v) => `doctor: ${v}`),
    ...summary.ledger.duplicates.map((v) => `committed twice: ${v}`),
    ...summary.ledger.runsAfterCommit.map((v) => `step ran after its commit: ${v}`),
    ...(summary.ledger.unversioned > 0 ? [`${summary.ledger.unversioned} commits without a version`] : []),
  ];
}

export { checkLedger };
