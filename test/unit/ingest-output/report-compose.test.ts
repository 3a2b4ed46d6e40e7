import { describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../../src/queue/batches/load.js';
import { changesSince, composeReport, MAX_LISTED } from '../../../src/steps/batch/report-compose.js';

function batchRecord(overrides: Partial<BatchRecord> = {}): BatchRecord {
  return {
    batchId: 'bid0000000001',
    status: 'reporting',
    message: null,
    lastModified: '2026-01-01 00:00:00 +0000',
    statusVersion: 3,
    jobCount: 3,
    completedJobs: 0,
    failedJobs: 0,
    expansionFailed: false,
    submission: {
      profile_name: 'demo_profile',
      submitter: 'jdoe',
      payload_url: 'https://example.org/batch.checkm',
      type: 'batch-manifest',
      batchID: 'bu-123',
      erc_what: 'My batch',
    },
    hasStates: true,
    expansion: 'done',
    ...overrides,
  };
}

describe('the depositor report', () => {
  it('names the batch, counts and lists completed and failed jobs with their details', () => {
    const report = composeReport({
      batch: batchRecord(),
      update: false,
      jobs: { completed: ['jid1', 'jid2'], failed: ['jid3'], deleted: [] },
      previous: undefined,
      summaries: new Map([
        ['jid1', { ark: 'ark:/99999/fk4a', localIds: ['loc1'] }],
        ['jid3', { message: 'download failed:\n404 for https://x/y' }],
      ]),
    });
    expect(report.subject).toBe('Ingest: FAIL -- Submission Processed: bu-123;');
    expect(report.text).toMatch(/^\nSubmission ID: bu-123\nJob\(s\): \n\n\t:Number of pending job\(s\): 0\n/);
    expect(report.text).toContain(
      '\t:Number of completed job(s): 2\n\t:Number of failed job(s): 1\n\nUser agent: jdoe\n',
    );
    expect(report.text).toContain('Status: Failed\nStatus Message: download failed:\n404 for https://x/y\n');
    expect(report.text).toContain('Batch: bid0000000001\n');
    expect(report.text).toContain('Completed jobs (2):\n  jid1  ark:/99999/fk4a  local id loc1\n  jid2\n');
    expect(report.text).toContain('Failed jobs (1):\n  jid3  download failed: 404 for https://x/y\n');
  });

  it('a batch that could not be expanded says why first, also in an update', () => {
    const batch = batchRecord({
      expansionFailed: true,
      message:
        'batch manifest line 3: nfo:fileSize "x" is not a size in bytes; the report could not be sent: SMTP refused',
    });
    const jobs = { completed: [], failed: [], deleted: [] };
    for (const update of [false, true]) {
      const { subject, text } = composeReport({
        batch,
        update,
        jobs,
        previous: undefined,
        summaries: new Map(),
      });
      expect(subject).toBe('Ingest: FAIL -- Submission Processed: bu-123;');
      expect(text).toContain(
        'Status: Failed\nStatus Message: batch manifest line 3: nfo:fileSize "x" is not a size in bytes\n',
      );
      expect(text).toContain(
        'Deleted job(s): 0\n\nThe batch could not be expanded into jobs: batch manifest line 3: nfo:fileSize "x" is not a size in bytes\n',
      );
      expect(text).not.toContain('SMTP');
    }
  });

  it('an update says what changed since the previous report', () => {
    const jobs = { completed: ['jid1', 'jid2', 'jid3'], failed: ['jid4', 'jid5'], deleted: ['jid6'] };
    const previous = {
      last_modified: '2026-01-01 10:00:00 +0000',
      successful_jobs: ['jid1'],
      failed_jobs: ['jid2', 'jid3', 'jid4', 'jid6'],
    };
    expect(changesSince(jobs, previous)).toEqual({
      succeededSince: ['jid2', 'jid3'],
      stillFailing: ['jid4'],
      newlyFailed: ['jid5'],
    });
    const report = composeReport({
      batch: batchRecord(),
      update: true,
      jobs,
      previous,
      summaries: new Map(),
    });
    expect(report.subject).toBe('Ingest: FAIL -- Submission Processed: bu-123;');
    expect(report.text).toContain('Batch: bid0000000001 (update report)\n');
    expect(report.text).toContain('Changes since the previous report (2026-01-01 10:00:00 +0000):');
    expect(report.text).toContain('Completed since the previous report (2):\n  jid2\n  jid3\n');
    expect(report.text).toContain('Still failing (1):\n  jid4\n');
    expect(report.text).toContain('Failed since the previous report (1):\n  jid5\n');
    expect(report.text).toContain('Deleted jobs (1):\n  jid6\n');
  });

  it('an update with no change says so', () => {
    const jobs = { completed: ['jid1'], failed: ['jid2'], deleted: [] };
    const previous = { last_modified: 'x', successful_jobs: ['jid1'], failed_jobs: ['jid2'] };
    const report = composeReport({
      batch: batchRecord(),
      update: true,
      jobs,
      previous,
      summaries: new Map(),
    });
    expect(report.text).toContain('No job changed since then.');
    expect(report.text).toContain('Still failing (1)');
  });

  it('lists at most MAX_LISTED jobs per section and counts the rest', () => {
    const completed = Array.from({ length: MAX_LISTED + 7 }, (_, i) => `jid${i}`);
    const report = composeReport({
      batch: batchRecord(),
      update: false,
      jobs: { completed, failed: [], deleted: [] },
      previous: undefined,
      summaries: new Map(),
    });
    expect(report.text).toContain(`… and 7 more`);
    expect(report.text).not.toContain(`jid${MAX_LISTED}\n`);
  });
});
