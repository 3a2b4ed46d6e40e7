import type { StatusReport } from '../tree/records.js';
import { encodeJson } from '../tree/wire.js';

/**
 * The most a `status-report` node holds. ZooKeeper refuses data over 1 MiB (jute.maxbuffer) and
 * drops a request over it, and the report is written in the reporting commit's multi: without a
 * bound, a batch of more than about 60,000 jobs could never leave reporting.
 */
export const STATUS_REPORT_MAX_BYTES = 960 * 1024;

/** How many job ids of each list a report left out to stay under its bound. */
export interface OmittedJobs {
  failed: number;
  successful: number;
}

/**
 * The report as its node stores it. A report over `maxBytes` keeps every failed job it can
 * (operators act on those), then successful ones, in list order, and says how many of each it
 * left out (`failed_jobs_omitted`, `successful_jobs_omitted`: extra keys, which mrt-zk readers
 * ignore). Nothing is lost: the batch's `batch-completed` and `batch-failed` folders name every job.
 */
export function encodeStatusReport(
  report: StatusReport,
  maxBytes = STATUS_REPORT_MAX_BYTES,
): { data: Buffer; omitted: OmittedJobs } {
  const whole = encodeJson(report);
  if (whole.length <= maxBytes) return { data: whole, omitted: { failed: 0, successful: 0 } };
  const worstCase = {
    ...report,
    failed_jobs: [],
    successful_jobs: [],
    ...omittedKeys(Number.MAX_SAFE_INTEGER, 0),
  };
  let budget = maxBytes - encodeJson(worstCase).length;
  const take = (ids: readonly string[]): string[] => {
    const kept: string[] = [];
    for (const id of ids) {
      const cost = Buffer.byteLength(JSON.stringify(id)) + 1; // the id and its comma
      if (cost > budget) break;
      budget -= cost;
      kept.push(id);
    }
    return kept;
  };
  const failed = take(report.failed_jobs);
  const successful = take(report.successful_jobs);
  const omitted = {
    failed: report.failed_jobs.length - failed.length,
    successful: report.successful_jobs.length - successful.length,
  };
  const data = encodeJson({
    ...report,
    failed_jobs: failed,
    successful_jobs: successful,
    ...omittedKeys(omitted.failed, omitted.successful),
  });
  return { data, omitted };
}

function omittedKeys(failed: number, successful: number): Record<string, number> {
  return { failed_jobs_omitted: failed, successful_jobs_omitted: successful };
}
