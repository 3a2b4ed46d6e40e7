import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import {
  batchFoldersFor,
  checkBulkFilter,
  jobMatches,
  statesAccepting,
  targetStates,
} from '../../../src/admin/bulk/filter.js';
import { refusalOf, summarize, type BulkItem } from '../../../src/admin/bulk/outcome.js';
import { QueueError } from '../../../src/queue/tree/errors.js';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { ZkError } from '../../../src/zk/index.js';

const lifecycle = merrittJobLifecycle;

/** The states whose edges in the lifecycle's own table carry `event`. */
const tableFrom = (event: string): string[] =>
  lifecycle.states.filter((state) => lifecycle.next(jobIn(state, 'processing'), { type: event }).ok);

function jobIn(status: string, lastSuccessfulStatus: string | null = null): JobRecord {
  return {
    jobId: 'jid0000000001',
    batchId: 'bid0000000001',
    status,
    lastSuccessfulStatus,
    retryCount: 0,
    message: null,
    lastModified: '',
    priority: 5,
    spaceNeeded: 0,
    statusVersion: 0,
    configuration: {
      profile_name: 'p1',
      submitter: 's',
      payload_url: 'u',
      payload_type: 't',
      collection: 'c1',
    },
    identifiers: undefined,
    metadata: undefined,
    store: undefined,
    inventory: undefined,
  };
}

describe('bulk filter (bulk-filter.ts)', () => {
  it("reads the states an action applies from off the machine, agreeing with the machine's answers", () => {
    expect(statesAccepting(lifecycle, 'admin.requeue')).toEqual(['failed']);
    expect(statesAccepting(lifecycle, 'admin.release')).toEqual(tableFrom('admin.release'));
    expect(statesAccepting(lifecycle, 'admin.hold')).toEqual(tableFrom('admin.hold'));
    expect(statesAccepting(lifecycle, 'admin.delete')).toEqual(tableFrom('admin.delete'));
    expect(statesAccepting(lifecycle, 'admin.delete').sort()).toEqual(['failed', 'held']);
    expect(statesAccepting(lifecycle, 'no.such-event')).toEqual([]);
  });

  it("targets the filter's state when given (even one the action does not apply to), else the lifecycle's", () => {
    expect(targetStates(lifecycle, 'requeue', { batch: 'bid1' })).toEqual(['failed']);
    expect(targetStates(lifecycle, 'release', { state: 'pending' })).toEqual(['pending']);
  });

  it('refuses an empty filter, a bad batch id and a state the lifecycle does not know', () => {
    const code = (filter: object): string | undefined => {
      try {
        checkBulkFilter(lifecycle, filter);
        return undefined;
      } catch (err) {
        return (err as QueueError).code;
      }
    };
    expect(code({})).toBe('BAD_REQUEST');
    expect(code({ batch: 'jid1' })).toBe('BAD_REQUEST');
    expect(code({ state: 'scanning' })).toBe('BAD_REQUEST');
    expect(code({ collection: 'c1' })).toBeUndefined();
    expect(code({ batch: 'bid0000000001', state: 'failed' })).toBeUndefined();
  });

  it('looks for failed jobs of a batch in batch-failed alone, and narrows batch-processing by state folders', () => {
    expect(batchFoldersFor(lifecycle, ['failed'])).toEqual([{ folder: 'batch-failed' }]);
    expect(batchFoldersFor(lifecycle, ['held', 'failed'])).toEqual([
      { folder: 'batch-processing', narrowBy: ['held'] },
      { folder: 'batch-failed' },
    ]);
    expect(batchFoldersFor(lifecycle, ['pending', 'held'])).toEqual([
      { folder: 'batch-processing', narrowBy: ['pending', 'held'] },
    ]);
  });

  it('matches a job only in a target state and with every filter key given', () => {
    const job = jobIn('failed');
    expect(jobMatches(job, { batch: 'bid0000000001' }, ['failed'])).toBe(true);
    expect(jobMatches(job, { batch: 'bid0000000002' }, ['failed'])).toBe(false);
    expect(jobMatches(job, { collection: 'c1', profile: 'p1' }, ['failed'])).toBe(true);
    expect(jobMatches(job, { collection: 'c1', profile: 'p2' }, ['failed'])).toBe(false);
    expect(jobMatches(job, { collection: 'c2' }, ['failed'])).toBe(false);
    // A stale ref: the job is no longer in the state its folder said.
    expect(jobMatches(jobIn('pending'), { collection: 'c1' }, ['failed'])).toBe(false);
  });
});

describe('bulk outcomes (bulk-outcome.ts)', () => {
  const done = (jid: string): BulkItem => ({
    jid,
    bid: 'b',
    from: 'failed',
    outcome: 'done',
    to: 'downloading',
  });
  const refused = (jid: string, error: string): BulkItem => ({
    jid,
    outcome: 'refused',
    error,
    message: 'no',
  });
  const head = { action: 'requeue' as const, dryRun: false, filter: { batch: 'b' }, states: ['failed'] };

  it('counts every item, counts refusals by code, and lists refused items first in jid order', () => {
    const report = summarize(head, [
      done('jid3'),
      refused('jid4', 'INVALID_TRANSITION'),
      done('jid1'),
      refused('jid2', 'LOCK_HELD'),
      refused('jid5', 'INVALID_TRANSITION'),
    ]);
    expect(report.counts).toEqual({ matched: 5, would: 0, done: 2, refused: 3, unreadable: 0 });
    expect(report.refusedBy).toEqual({ INVALID_TRANSITION: 2, LOCK_HELD: 1 });
    expect(report.items.map((i) => i.jid)).toEqual(['jid2', 'jid4', 'jid5', 'jid1', 'jid3']);
    expect(report.truncated).toBe(false);
  });

  it('caps the listed items but not the counts', () => {
    const items = Array.from({ length: 12 }, (_, i) => done(`jid${String(i).padStart(2, '0')}`));
    const report = summarize({ ...head, dryRun: true }, items, 3, 10);
    expect(report.items).toHaveLength(10);
    expect(report.truncated).toBe(true);
    expect(report.counts).toMatchObject({ matched: 12, done: 12, unreadable: 3 });
  });

  it("keeps a refusal's stable code and message, and lets ZooKeeper being away end the run", () => {
    const err = new QueueError('INVALID_TRANSITION', 'job jid1: event "admin.requeue" is not allowed');
    expect(refusalOf(err)).toEqual({ error: 'INVALID_TRANSITION', message: err.message });
    expect(refusalOf(new ZkError('NO_NODE', { path: '/jobs/jid1' }))).toMatchObject({ error: 'ZK_NO_NODE' });
    const gone = new ZkError('CONNECTION_LOSS');
    expect(() => refusalOf(gone)).toThrow(gone);
    expect(() => refusalOf(new Error('boom'))).toThrow('boom');
  });
});
