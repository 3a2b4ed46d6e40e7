import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle, BATCH_FOLDERS, type BatchFolder } from '../../../machines/index.js';
import { checkQueue } from '../../../src/doctor/doctor.js';
import type { CheckSettings } from '../../../src/doctor/problems.js';
import type { NodeRead } from '../../../src/queue/scan/reader.js';
import type { BatchScan, JobScan, LockScan, QueueScan, UuidScan } from '../../../src/queue/scan/snapshot.js';
import { createJobCheckStream, type CheckResult } from '../../../src/doctor/stream.js';
import { JOB_STATES, batchRef, refName } from '../../../src/queue/tree/paths.js';
import { zkStat } from '../../support/zk-stat.js';

const NOW = 1_800_000_000_000;
const lifecycle = merrittJobLifecycle;
const STATES = lifecycle.states;
const FOLDERS = [...new Set(STATES.map((state) => lifecycle.folderOf(state)))];
const BATCHES = ['bid0000000001', 'bid0000000002'];
const NO_BATCH = 'bid0000000099';

const stat = zkStat;

const node = (value: unknown): NodeRead => ({
  data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  stat: stat(NOW),
});

/** One generated job and the faults around it. */
interface JobSpec {
  status: string | undefined;
  bid: string | undefined;
  priority: string | undefined;
  configuration: unknown;
  spaceNeeded: boolean;
  lockOwner: string | undefined;
  old: boolean;
  stateRef:
    'right' | 'none' | 'wrong-folder' | 'wrong-priority' | 'duplicate' | 'odd-prefix' | 'unknown-folder';
  batchRef: 'right' | 'none' | 'wrong-folder' | 'other-batch' | 'duplicate';
}

const jobSpec: fc.Arbitrary<JobSpec> = fc.record({
  status: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...STATES.map((state) => lifecycle.wireName(state))) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, 'not json', 'Nonsense') },
  ),
  bid: fc.constantFrom(BATCHES[0], BATCHES[0], BATCHES[1], NO_BATCH, '', undefined),
  priority: fc.constantFrom('5', '5', '3', '150', 'x', undefined),
  configuration: fc.constantFrom(
    { payload_url: 'https://example.org/m.checkm' },
    { payload_url: '/var/ingest/queue/x.zip' },
    { filename: 'object.zip' },
    'not json',
    undefined,
  ),
  spaceNeeded: fc.boolean(),
  lockOwner: fc.constantFrom(undefined, undefined, '0', 'abc', 'def'),
  old: fc.boolean(),
  stateRef: fc.constantFrom(
    'right',
    'right',
    'none',
    'wrong-folder',
    'wrong-priority',
    'duplicate',
    'odd-prefix',
    'unknown-folder',
  ),
  batchRef: fc.constantFrom('right', 'right', 'none', 'wrong-folder', 'other-batch', 'duplicate'),
});

interface TreeSpec {
  jobs: JobSpec[];
  batchStatus: [string, string];
  batchLocks: [string | undefined, string | undefined];
  /** Refs naming jobs that do not exist. */
  danglingState: number[];
  danglingBatch: number[];
  badNames: string[];
  uuids: [string, string][];
  otherLocks: string[];
  liveSessions: string[] | undefined;
}

const treeSpec: fc.Arbitrary<TreeSpec> = fc.record({
  jobs: fc.array(jobSpec, { maxLength: 40 }),
  batchStatus: fc.tuple(
    fc.constantFrom('Processing', 'Pending', 'Completed', 'Failed'),
    fc.constantFrom('Processing', 'Pending', 'Held', 'Deleted', 'Reporting', 'not json'),
  ),
  batchLocks: fc.tuple(fc.constantFrom(undefined, '0', 'abc'), fc.constantFrom(undefined, 'def')),
  danglingState: fc.array(fc.integer({ min: 900, max: 999 }), { maxLength: 4 }),
  danglingBatch: fc.array(fc.integer({ min: 900, max: 999 }), { maxLength: 4 }),
  badNames: fc.array(fc.constantFrom('junk', 'x5-jid1', '05-bid0000000001'), { maxLength: 3 }),
  uuids: fc.array(fc.tuple(fc.constantFrom('u-1', 'u-2', 'u-3'), fc.constantFrom(...BATCHES, NO_BATCH, '')), {
    maxLength: 3,
  }),
  otherLocks: fc.array(fc.constantFrom('0', 'abc', 'def'), { maxLength: 3 }),
  liveSessions: fc.constantFrom(undefined, ['abc'], ['abc', 'def']),
});

const jidOf = (n: number): string => `jid${String(n).padStart(10, '0')}`;
const otherFolder = (folder: string): string => FOLDERS.find((f) => f !== folder)!;

/** The scan a tree spec describes, and the refs it made dangle or point at another batch. */
function build(spec: TreeSpec): { scan: QueueScan; settings: CheckSettings; expected: string[] } {
  const stateFolders = new Map<string, string[]>(FOLDERS.map((folder) => [folder, []]));
  const addState = (folder: string, name: string): void => {
    if (!stateFolders.has(folder)) stateFolders.set(folder, []);
    stateFolders.get(folder)!.push(name);
  };
  const folders = new Map(
    BATCHES.map((bid) => [bid, new Map(BATCH_FOLDERS.map((f) => [f, [] as string[]]))]),
  );
  const addBatch = (bid: string, folder: BatchFolder, jid: string): void => {
    folders.get(bid)?.get(folder)!.push(jid);
  };
  const expected: string[] = [];
  const jobs = spec.jobs.map((job, i): JobScan => {
    const jid = jidOf(i + 1);
    const state = (job.status && lifecycle.parse(job.status)) || 'pending';
    const folder = lifecycle.folderOf(state);
    const name = refName(Number(job.priority ?? 5) || 5, jid);
    if (job.stateRef === 'right' || job.stateRef === 'duplicate') addState(folder, name);
    if (job.stateRef === 'duplicate' || job.stateRef === 'wrong-folder') addState(otherFolder(folder), name);
    if (job.stateRef === 'wrong-priority') addState(folder, refName(42, jid));
    if (job.stateRef === 'odd-prefix') addState(folder, `5-${jid}`);
    if (job.stateRef === 'unknown-folder') addState('bogus', name);
    const bid = BATCHES.includes(job.bid ?? '') ? job.bid! : BATCHES[0]!;
    const other = BATCHES.find((b) => b !== bid)!;
    const batchFolder = merrittJobLifecycle.batchFolderOf(state);
    if (job.batchRef === 'right' || job.batchRef === 'duplicate') addBatch(bid, batchFolder, jid);
    if (job.batchRef === 'duplicate' || job.batchRef === 'wrong-folder')
      addBatch(
        bid,
        BATCH_FOLDERS.find((f) => f !== batchFolder)!,
        jid,
      );
    if (job.batchRef === 'other-batch') {
      addBatch(other, batchFolder, jid);
      if (job.bid === bid) expected.push(`BATCH_REF_WRONG_BATCH ${batchRef(other, batchFolder, jid)}`);
    }
    const children = ['bid', 'configuration', 'priority', 'space_needed', 'status', 'lock'].filter(
      (child) =>
        (child !== 'status' || job.status !== undefined) &&
        (child !== 'bid' || job.bid !== undefined) &&
        (child !== 'priority' || job.priority !== undefined) &&
        (child !== 'configuration' || job.configuration !== undefined) &&
        (child !== 'space_needed' || job.spaceNeeded) &&
        (child !== 'lock' || job.lockOwner !== undefined),
    );
    return {
      jid,
      children: new Set(children),
      status:
        job.status === undefined
          ? undefined
          : node(job.status === 'not json' ? 'not json' : { status: job.status }),
      bid: job.bid === undefined ? undefined : node(job.bid),
      configuration: job.configuration === undefined ? undefined : node(job.configuration),
      priority: job.priority === undefined ? undefined : node(job.priority),
      lockOwner: job.lockOwner,
      ctime: job.status === undefined ? (job.old ? NOW - 3_600_000 : NOW - 1000) : undefined,
    };
  });
  for (const n of spec.danglingState) {
    const path = `${JOB_STATES}/pending/${refName(5, jidOf(n))}`;
    if (!stateFolders.get('pending')!.includes(refName(5, jidOf(n))))
      expected.push(`JOB_STATE_REF_DANGLING ${path}`);
    addState('pending', refName(5, jidOf(n)));
  }
  for (const n of spec.danglingBatch) {
    expected.push(`BATCH_REF_DANGLING ${batchRef(BATCHES[1]!, 'batch-failed', jidOf(n))}`);
    addBatch(BATCHES[1]!, 'batch-failed', jidOf(n));
  }
  for (const name of spec.badNames) addState('pending', name);
  const batches = BATCHES.map((bid, i): BatchScan => ({
    bid,
    children: new Set(['status', 'submission', 'states']),
    status: node(spec.batchStatus[i] === 'not json' ? 'not json' : { status: spec.batchStatus[i] }),
    submission: node(
      i === 0 ? { batchID: 'u-1', payload_url: 'https://example.org/m' } : { filename: 'o.zip' },
    ),
    folders: Object.fromEntries(folders.get(bid)!) as Record<BatchFolder, string[]>,
    lockOwner: spec.batchLocks[i],
  }));
  const uuids = spec.uuids.map(([uuid, target]): UuidScan => ({
    uuid,
    path: `/batch-uuids/${uuid}`,
    target,
    ctime: NOW,
  }));
  const otherLocks = spec.otherLocks.map((owner, i): LockScan => ({
    item: `ark-${i}`,
    path: `/locks/storage/ark-${i}`,
    owner,
  }));
  const scan: QueueScan = {
    jobs: new Map(jobs.map((job) => [job.jid, job])),
    batches: new Map(batches.map((batch) => [batch.bid, batch])),
    stateFolders,
    uuids,
    otherLocks,
  };
  const settings: CheckSettings = {
    now: NOW,
    orphanGraceMs: 600_000,
    liveSessions: spec.liveSessions && new Set(spec.liveSessions),
    lifecycle,
  };
  return { scan, settings, expected };
}

/** The checks fed the scan's jobs in windows of the given sizes (the last one repeated). */
function streamed(scan: QueueScan, settings: CheckSettings, sizes: readonly number[]): CheckResult {
  const checks = createJobCheckStream(scan, settings);
  const jobs = [...scan.jobs.values()];
  for (let start = 0, i = 0; start < jobs.length; i += 1) {
    const size = sizes[Math.min(i, sizes.length - 1)]!;
    checks.add(jobs.slice(start, start + size));
    start += size;
  }
  return checks.finish();
}

const whole = (scan: QueueScan, settings: CheckSettings): CheckResult => streamed(scan, settings, [Infinity]);

describe('doctor streaming the jobs a window at a time', () => {
  it('finds exactly the problems and notes of the whole scan, in order, for any window size', () => {
    fc.assert(
      fc.property(treeSpec, fc.integer({ min: 1, max: 45 }), (spec, window) => {
        const { scan, settings } = build(spec);
        const all = whole(scan, settings);
        expect(streamed(scan, settings, [window])).toEqual(all);
        expect(streamed(scan, settings, [1])).toEqual(all);
        expect(checkQueue(scan, settings)).toEqual(all.problems);
      }),
      { numRuns: 300 },
    );
  });

  it('finds the same for windows of uneven sizes', () => {
    fc.assert(
      fc.property(
        treeSpec,
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 8 }),
        (spec, sizes) => {
          const { scan, settings } = build(spec);
          expect(streamed(scan, settings, sizes)).toEqual(whole(scan, settings));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('still finds, after the stream, the refs that name no job or a job of another batch', () => {
    fc.assert(
      fc.property(treeSpec, fc.integer({ min: 1, max: 5 }), (spec, window) => {
        const { scan, settings, expected } = build(spec);
        const result = streamed(scan, settings, [window]);
        const found = new Set(result.problems.map((p) => `${p.code} ${p.path}`));
        for (const problem of expected) expect(found).toContain(problem);
        const refs =
          [...scan.stateFolders.values()].flat().length +
          [...scan.batches.values()].flatMap((batch) =>
            BATCH_FOLDERS.flatMap((folder) => batch.folders[folder]),
          ).length;
        expect(result.checked).toEqual({ jobs: scan.jobs.size, batches: scan.batches.size, refs });
      }),
      { numRuns: 200 },
    );
  });

  it('generates the faults it claims to: every code of a job, a ref and a lock shows up across runs', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(treeSpec, (spec) => {
        const { scan, settings } = build(spec);
        const result = whole(scan, settings);
        for (const item of [...result.problems, ...result.notes]) seen.add(item.code);
      }),
      { numRuns: 300, seed: 22 },
    );
    for (const code of [
      'ORPHAN_ID_NODE',
      'JOB_STATUS_MISSING',
      'JOB_STATUS_INVALID',
      'JOB_STATUS_UNKNOWN',
      'JOB_BID_MISSING',
      'JOB_BATCH_MISSING',
      'JOB_CONFIGURATION_MISSING',
      'JOB_PRIORITY_INVALID',
      'JOB_NODE_MISSING',
      'JOB_NO_STATE_REF',
      'JOB_STATE_REF_DUPLICATE',
      'JOB_STATE_REF_WRONG_FOLDER',
      'JOB_STATE_REF_WRONG_PRIORITY',
      'JOB_NO_BATCH_REF',
      'JOB_BATCH_REF_DUPLICATE',
      'JOB_BATCH_REF_WRONG_FOLDER',
      'REF_NAME_INVALID',
      'STATE_FOLDER_UNKNOWN',
      'JOB_STATE_REF_DANGLING',
      'BATCH_REF_DANGLING',
      'BATCH_REF_WRONG_BATCH',
      'STALE_LOCK',
      'JOB_LEFT_FOR_INGEST',
      'BATCH_LEFT_PENDING',
    ])
      expect(seen).toContain(code);
  });
});
