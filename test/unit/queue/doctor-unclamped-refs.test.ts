import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import type { CheckSettings } from '../../../src/doctor/problems.js';
import type { NodeRead } from '../../../src/queue/scan/reader.js';
import type { BatchScan, JobScan, QueueScan } from '../../../src/queue/scan/snapshot.js';
import { createJobCheckStream } from '../../../src/doctor/stream.js';
import { zkStat } from '../../support/zk-stat.js';

const NOW = 1_800_000_000_000;
const settings: CheckSettings = {
  now: NOW,
  orphanGraceMs: 600_000,
  liveSessions: undefined,
  lifecycle: merrittJobLifecycle,
};
const B1 = 'bid0000000001';

const node = (value: unknown): NodeRead => ({
  data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  stat: zkStat(NOW - 3_600_000),
});

/** A job as mrt-zk's Job.createJob leaves it: every node, its priority node as given. */
function job(jid: string, priority: string, status = 'Pending'): JobScan {
  return {
    jid,
    children: new Set(['status', 'bid', 'configuration', 'priority', 'space_needed']),
    status: node({ status, last_successful_status: null }),
    bid: node(B1),
    configuration: node({ profile_name: 'demo', payload_url: 'https://example.org/m.checkm' }),
    priority: node(priority),
  };
}

/** Each job with its priority node and the name of its ref in `pending`. */
function check(jobs: { jid: string; priority: string; ref: string; status?: string }[]) {
  const batch: BatchScan = {
    bid: B1,
    children: new Set(['status', 'submission', 'states']),
    status: node({ status: 'Processing' }),
    submission: node({ profile_name: 'demo' }),
    folders: {
      'batch-processing': jobs.map((j) => j.jid),
      'batch-completed': [],
      'batch-failed': [],
      'batch-deleted': [],
    },
  };
  const scan: QueueScan = {
    jobs: new Map(jobs.map((j) => [j.jid, job(j.jid, j.priority, j.status)])),
    batches: new Map([[B1, batch]]),
    stateFolders: new Map([['pending', jobs.map((j) => j.ref)]]),
    uuids: [],
    otherLocks: [],
  };
  const checks = createJobCheckStream(scan, settings);
  checks.add(scan.jobs.values());
  const { problems, notes } = checks.finish();
  return {
    problems: problems.map((p) => `${p.code} ${p.item}`).sort(),
    notes: notes.map((n) => `${n.code} ${n.item}`).sort(),
    messages: new Map(notes.map((n) => [n.item, n.message])),
  };
}

describe('doctor: refs named with a priority outside 00-99', () => {
  it('tells refs named as mrt-zk names them (`%02d` of the priority node) as notes, not problems', () => {
    const found = check([
      { jid: 'jid0000000001', priority: '100', ref: '100-jid0000000001' },
      { jid: 'jid0000000002', priority: '-1', ref: '-1-jid0000000002' },
      { jid: 'jid0000000003', priority: '-10', ref: '-10-jid0000000003' },
      { jid: 'jid0000000004', priority: '5', ref: '05-jid0000000004' },
    ]);
    expect(found.problems).toEqual([]);
    expect(found.notes).toEqual([
      'JOB_STATE_REF_UNCLAMPED jid0000000001',
      'JOB_STATE_REF_UNCLAMPED jid0000000002',
      'JOB_STATE_REF_UNCLAMPED jid0000000003',
    ]);
    const high = found.messages.get('jid0000000001')!;
    expect(high).toContain('priority 100');
    expect(high).toContain('/jobs/states/pending/99-jid0000000001');
    expect(high).toContain(`read its job id as "-jid0000000001" and never take it`);
    // `-1-` less three characters is the job id: Merritt's consumers take that one.
    expect(found.messages.get('jid0000000002')).toContain("Merritt's consumers take it as well");
    expect(found.messages.get('jid0000000003')).toContain('"-jid0000000003"');
  });

  it('reports a prefix that disagrees with the priority node as before, and is silent about a ref already clamped', () => {
    const found = check([
      { jid: 'jid0000000001', priority: '7', ref: '05-jid0000000001' },
      { jid: 'jid0000000002', priority: '5', ref: '100-jid0000000002' },
      { jid: 'jid0000000003', priority: '100', ref: '05-jid0000000003' },
      { jid: 'jid0000000004', priority: '100', ref: '99-jid0000000004' },
    ]);
    expect(found.problems).toEqual([
      'JOB_STATE_REF_WRONG_PRIORITY jid0000000001',
      'JOB_STATE_REF_WRONG_PRIORITY jid0000000002',
      'JOB_STATE_REF_WRONG_PRIORITY jid0000000003',
    ]);
    expect(found.notes).toEqual([]);
  });

  it('reports a ref in the wrong folder as that, whatever its prefix', () => {
    const found = check([
      { jid: 'jid0000000001', priority: '100', ref: '100-jid0000000001', status: 'Estimating' },
    ]);
    expect(found.problems).toEqual(['JOB_STATE_REF_WRONG_FOLDER jid0000000001']);
    expect(found.notes).toEqual([]);
  });
});
