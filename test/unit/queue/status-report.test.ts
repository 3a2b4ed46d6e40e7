import { describe, expect, it } from 'vitest';
import { encodeStatusReport, STATUS_REPORT_MAX_BYTES } from '../../../src/queue/batches/status-report.js';

const ids = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `jid${String(from + i).padStart(10, '0')}`);
const decode = (data: Buffer) => JSON.parse(data.toString('utf8')) as Record<string, unknown>;

describe('the status-report node', () => {
  it('holds the whole report, with no extra keys, when it fits', () => {
    const report = { last_modified: 't', failed_jobs: ids(1, 2), successful_jobs: ids(3, 5) };
    const { data, omitted } = encodeStatusReport(report);
    expect(decode(data)).toEqual(report);
    expect(omitted).toEqual({ failed: 0, successful: 0 });
  });

  it('keeps the failed jobs first and counts what it leaves out when the report is too large', () => {
    const report = { last_modified: 't', failed_jobs: ids(1, 10), successful_jobs: ids(100, 100) };
    const { data, omitted } = encodeStatusReport(report, 600);
    expect(data.length).toBeLessThanOrEqual(600);
    const stored = decode(data) as {
      failed_jobs: string[];
      successful_jobs: string[];
      failed_jobs_omitted: number;
      successful_jobs_omitted: number;
    };
    expect(stored.failed_jobs).toEqual(report.failed_jobs);
    expect(stored.successful_jobs).toEqual(report.successful_jobs.slice(0, stored.successful_jobs.length));
    expect(stored.successful_jobs.length).toBeGreaterThan(0);
    expect(stored.successful_jobs_omitted).toBe(100 - stored.successful_jobs.length);
    expect(stored.failed_jobs_omitted).toBe(0);
    expect(omitted).toEqual({ failed: 0, successful: stored.successful_jobs_omitted });
  });

  it('stays under the 1 MiB ZooKeeper node limit for a batch of 100,000 jobs', () => {
    const report = { last_modified: 't', failed_jobs: ids(1, 30_000), successful_jobs: ids(30_001, 70_000) };
    const { data, omitted } = encodeStatusReport(report);
    expect(data.length).toBeLessThanOrEqual(STATUS_REPORT_MAX_BYTES);
    expect(STATUS_REPORT_MAX_BYTES).toBeLessThan(1024 * 1024);
    expect(omitted.failed).toBe(0);
    expect(omitted.successful).toBeGreaterThan(0);
    const stored = decode(data) as { successful_jobs: string[]; successful_jobs_omitted: number };
    expect(stored.successful_jobs.length + stored.successful_jobs_omitted).toBe(70_000);
  });
});
