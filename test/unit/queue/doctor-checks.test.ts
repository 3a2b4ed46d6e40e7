import { merrittJobLifecycle, type BatchFolder } from '../../../machines/index.js';
import { describe, expect, it } from 'vitest';
import { checkQueue } from '../../../src/doctor/doctor.js';
import { normaliseSessionId } from '../../../src/zk/session-id.js';
import type { CheckSettings } from '../../../src/doctor/problems.js';
import type { NodeRead } from '../../../src/queue/scan/reader.js';
import type { BatchScan, JobScan, QueueScan } from '../../../src/queue/scan/snapshot.js';
import type { ZkStat } from '../../../src/zk/index.js';
import { zkStat } from '../../support/zk-stat.js';

const NOW = 1_800_000_000_000;
const settings: CheckSettings = {
  now: NOW,
  orphanGraceMs: 600_000,
  liveSessions: undefined,
  lifecycle: merrittJobLifecycle,
};

function stat(ctime = NOW - 3_600_000, ephemeralOwner = '0'): ZkStat {
  return zkStat(ctime, ephemeralOwner);
}

function node(value: unknown): NodeRead {
  return { data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)), stat: stat() };
}

function job(
  jid: string,
  options: { status?: string; bid?: string; priority?: string; without?: string[] } = {},
): JobScan {
  const children = ['status', 'bid', 'configuration', 'priority', 'space_needed'];
  return {
    jid,
    children: new Set(children.filter((name) => !options.without?.includes(name))),
    status: node({ status: options.status ?? 'Pending', last_successful_status: null }),
    bid: node(options.bid ?? 'bid0000000001'),
    configuration: node({ profile_name: 'demo' }),
    priority: node(options.priority ?? '5'),
  };
}

function batch(
  bid: string,
  status: string,
  folders: Partial<Record<BatchFolder, string[]>> = {},
  uuid?: string,
): BatchScan {
  return {
    bid,
    children: new Set(['status', 'submission', 'states']),
    status: node({ status, last_modified: '2026-01-01 00:00:00 +0000' }),
    submission: node({ profile_name: 'demo', ...(uuid ? { batchID: uuid } : {}) }),
    folders: {
      'batch-processing': [],
      'batch-completed': [],
      'batch-failed': [],
      'batch-deleted': [],
      ...folders,
    },
  };
}

function scanOf(
  parts: Partial<Omit<QueueScan, 'jobs' | 'batches'>> & { jobs?: JobScan[]; batches?: BatchScan[] } = {},
): QueueScan {
  return {
    jobs: new Map((parts.jobs ?? []).map((j) => [j.jid, j])),
    batches: new Map((parts.batches ?? []).map((b) => [b.bid, b])),
    stateFolders: parts.stateFolders ?? new Map<string, string[]>(),
    uuids: parts.uuids ?? [],
    otherLocks: parts.otherLocks ?? [],
  };
}

const codes = (scan: QueueScan, with_: CheckSettings = settings): string[] =>
  checkQueue(scan, with_)
    .map((p) => `${p.code} ${p.item}`)
    .sort();

const J1 = 'jid0000000001';
const B1 = 'bid0000000001';

describe('doctor checks over a scan', () => {
  it('a pending job with both refs in place is consistent', () => {
    const scan = scanOf({
      jobs: [job(J1)],
      batches: [batch(B1, 'Processing', { 'batch-processing': [J1] })],
      stateFolders: new Map([['pending', [`05-${J1}`]]]),
    });
    expect(codes(scan)).toEqual([]);
  });

  it('reports a job that can still move without space_needed or priority, and not a completed one', () => {
    const J2 = 'jid0000000002';
    const scan = scanOf({
      jobs: [
        job(J1, { without: ['space_needed', 'priority'] }),
        job(J2, { status: 'Completed', without: ['space_needed'] }),
      ],
      batches: [batch(B1, 'Processing', { 'batch-processing': [J1], 'batch-completed': [J2] })],
      stateFolders: new Map([
        ['pending', [`05-${J1}`]],
        ['completed', [`05-${J2}`]],
      ]),
    });
    const problems = checkQueue(scan, settings);
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['JOB_NODE_MISSING', `/jobs/${J1}/priority`],
      ['JOB_NODE_MISSING', `/jobs/${J1}/space_needed`],
    ]);
    expect(problems[1]!.message).toContain(
      `/jobs/${J1}/space_needed is missing; expected the estimated bytes`,
    );
  });

  it('reports two state refs, a ref name that is no ref, and a folder that names no state', () => {
    const scan = scanOf({
      jobs: [job(J1)],
      batches: [batch(B1, 'Processing', { 'batch-processing': [J1] })],
      stateFolders: new Map([
        ['pending', [`05-${J1}`, 'junk']],
        ['Bogus', [`05-${J1}`]],
      ]),
    });
    expect(codes(scan)).toEqual([
      `JOB_STATE_REF_DUPLICATE ${J1}`,
      'REF_NAME_INVALID /jobs/states/pending/junk',
      'STATE_FOLDER_UNKNOWN /jobs/states/Bogus',
    ]);
  });

  it("never advises deleting a folder of Merritt's own lifecycle, even under a lifecycle without it", () => {
    const withoutStoring = {
      ...merrittJobLifecycle,
      states: merrittJobLifecycle.states.filter((state) => state !== 'storing'),
    };
    const scan = scanOf({
      stateFolders: new Map([
        ['storing', []],
        ['bogus', []],
      ]),
    });
    const problems = checkQueue(scan, { ...settings, lifecycle: withoutStoring });
    const storing = problems.find((p) => p.path === '/jobs/states/storing');
    const bogus = problems.find((p) => p.path === '/jobs/states/bogus');
    expect(storing?.message).toContain("Merritt's services use");
    expect(storing?.message).not.toMatch(/delete it|can go/);
    expect(bogus?.message).toContain('the folder can go once it is empty');
  });

  it('names a job whose status the lifecycle does not know once, with the commands that end it', () => {
    const scan = scanOf({
      jobs: [job(J1, { status: 'Scanning' })],
      batches: [batch(B1, 'Processing', { 'batch-processing': [J1] })],
      stateFolders: new Map([['scanning', [`05-${J1}`]]]),
    });
    const problems = checkQueue(scan, settings).filter((p) => p.item === J1);
    expect(problems.map((p) => p.code)).toEqual(['JOB_STATUS_UNKNOWN']);
    expect(problems[0]?.message).toContain(`mrtq requeue ${J1} --to STATE`);
    expect(problems[0]?.message).toContain(`mrtq delete ${J1}`);
  });

  it('reports jobs in a batch that was never acquired, and running jobs of a deleted batch', () => {
    const J2 = 'jid0000000002';
    const B2 = 'bid0000000002';
    const scan = scanOf({
      jobs: [job(J1), job(J2, { bid: B2 })],
      batches: [
        batch(B1, 'Held', { 'batch-processing': [J1] }),
        batch(B2, 'Deleted', { 'batch-processing': [J2] }),
      ],
      stateFolders: new Map([['pending', [`05-${J1}`, `05-${J2}`]]]),
    });
    expect(codes(scan)).toEqual([`BATCH_DELETED_WITH_ACTIVE_JOBS ${B2}`, `BATCH_JOBS_BEFORE_ACQUIRE ${B1}`]);
  });

  it('does not report a failed batch whose failed jobs were deleted afterwards', () => {
    const scan = scanOf({
      jobs: [job(J1, { status: 'Deleted' })],
      batches: [batch(B1, 'Failed', { 'batch-deleted': [J1] })],
      stateFolders: new Map([['deleted', [`05-${J1}`]]]),
    });
    expect(codes(scan)).toEqual([]);
  });

  it('reports a batch ref in the wrong batch, a bid naming no batch, and an unreadable priority', () => {
    const J2 = 'jid0000000002';
    const J3 = 'jid0000000003';
    const scan = scanOf({
      jobs: [job(J1), job(J2, { bid: 'bid0000000099' }), job(J3, { priority: 'high' })],
      batches: [
        batch(B1, 'Processing', { 'batch-processing': [J1, J3] }),
        batch('bid0000000002', 'Processing', { 'batch-processing': [J1] }),
      ],
      stateFolders: new Map([['pending', [`05-${J1}`, `05-${J2}`, `05-${J3}`]]]),
    });
    expect(codes(scan)).toEqual([
      `BATCH_REF_WRONG_BATCH ${J1}`,
      `JOB_BATCH_MISSING ${J2}`,
      `JOB_PRIORITY_INVALID ${J3}`,
    ]);
  });

  it('reports uuid entries that disagree with their batch, and a batchID without an entry', () => {
    const B2 = 'bid0000000002';
    const scan = scanOf({
      batches: [batch(B1, 'Pending', {}, 'uuid-a'), batch(B2, 'Pending', {}, 'uuid-b')],
      uuids: [{ uuid: 'uuid-a', path: '/batch-uuids/uuid-a', target: B2, ctime: NOW }],
    });
    expect(codes(scan)).toEqual(['BATCH_UUID_MISMATCH uuid-a', `BATCH_UUID_MISSING ${B2}`]);
  });

  it('reports an empty id node only once it is older than the grace period', () => {
    const empty = (ctime: number): JobScan => ({ jid: J1, children: new Set(), ctime });
    expect(codes(scanOf({ jobs: [empty(NOW - 600_000)] }))).toEqual([]);
    expect(codes(scanOf({ jobs: [empty(NOW - 600_001)] }))).toEqual([`ORPHAN_ID_NODE ${J1}`]);
  });

  it('reports persistent locks always, and ephemeral ones only when their session is not live', () => {
    const locks = [
      { item: 'ark_1', path: '/locks/storage/ark_1', owner: '0' },
      { item: 'qid0000000001', path: '/access/small/qid0000000001/lock', owner: 'abc' },
    ];
    const scan = scanOf({ otherLocks: locks });
    expect(codes(scan)).toEqual(['STALE_LOCK ark_1']);
    expect(codes(scan, { ...settings, liveSessions: new Set(['def']) })).toEqual([
      'STALE_LOCK ark_1',
      'STALE_LOCK qid0000000001',
    ]);
    expect(codes(scan, { ...settings, liveSessions: new Set(['abc']) })).toEqual(['STALE_LOCK ark_1']);
  });

  it('reads session ids the way ZooKeeper prints them', () => {
    expect(normaliseSessionId(' 0x0001A2b ')).toBe('1a2b');
    expect(normaliseSessionId('0')).toBe('0');
  });
});
