import { describe, expect, it } from 'vitest';
import { deriveTimeline, TIMELINE_NOTE } from '../../../src/http/dashboard/timeline.js';

describe("a batch's timeline derived from stored timestamps", () => {
  it('orders the submission, the last status write of each job, the report and the batch, oldest first', () => {
    const { entries, unreadable } = deriveTimeline({
      bid: 'bid1',
      status: 'failed',
      lastModified: '2026-05-01 10:00:09 +0000',
      submissionDate: '2026-05-01T10:00:00.000Z',
      report: {
        last_modified: '2026-05-01 10:00:09 +0000',
        failed_jobs: ['jid2'],
        successful_jobs: ['jid1'],
      },
      jobs: [
        { jid: 'jid2', status: 'failed', lastModified: '2026-05-01 10:00:05 +0000', retryCount: 1 },
        { jid: 'jid1', status: 'completed', lastModified: '2026-05-01 12:00:07 +0200', retryCount: 0 },
      ],
    });
    expect(unreadable).toBe(0);
    expect(entries.map((e) => [e.at, e.item, e.id, e.what, e.state, e.source])).toEqual([
      ['2026-05-01T10:00:00.000Z', 'batch', 'bid1', 'submitted', undefined, 'submission.submissionDate'],
      ['2026-05-01T10:00:05.000Z', 'job', 'jid2', 'status', 'failed', 'status.last_modified'],
      ['2026-05-01T10:00:07.000Z', 'job', 'jid1', 'status', 'completed', 'status.last_modified'],
      // Same second: the report before the batch status it led to.
      ['2026-05-01T10:00:09.000Z', 'batch', 'bid1', 'report', undefined, 'status-report.last_modified'],
      ['2026-05-01T10:00:09.000Z', 'batch', 'bid1', 'status', 'failed', 'status.last_modified'],
    ]);
    expect(entries[1]?.label).toBe('job jid2 failed (retry 1): its last status write');
    expect(entries[3]?.label).toBe('status report written: 1 completed, 1 failed');
  });

  it('leaves out what it cannot date, and counts it', () => {
    const { entries, unreadable } = deriveTimeline({
      bid: 'bid1',
      status: 'pending',
      lastModified: 'yesterday',
      jobs: [{ jid: 'jid1', status: 'invalid', lastModified: '', retryCount: 0 }],
    });
    expect(entries).toEqual([]);
    expect(unreadable).toBe(2);
  });

  it('says that it shows each item’s last change only', () => {
    expect(TIMELINE_NOTE).toMatch(/last status write/);
    expect(TIMELINE_NOTE).toMatch(/Earlier transitions are not stored/);
  });
});
