import { describe, expect, it } from 'vitest';
import { batchNotes } from '../../../src/doctor/batches.js';
import type { NodeRead } from '../../../src/queue/scan/reader.js';
import type { BatchScan, QueueScan } from '../../../src/queue/scan/snapshot.js';

const node = (value: unknown): NodeRead => ({
  data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  stat: {
    version: 0,
    cversion: 0,
    numChildren: 0,
    dataLength: 0,
    ephemeralOwner: '0',
    ctime: 0,
    mtime: 0,
    czxid: '1',
    mzxid: '1',
  },
});

function batch(bid: string, status: unknown, submission: unknown): BatchScan {
  return {
    bid,
    children: new Set(['status', 'submission']),
    status: node(status),
    submission: node(submission),
    folders: { 'batch-processing': [], 'batch-completed': [], 'batch-failed': [], 'batch-deleted': [] },
  };
}

const scanOf = (batches: BatchScan[]): QueueScan => ({
  jobs: new Map(),
  batches: new Map(batches.map((b) => [b.bid, b])),
  stateFolders: new Map(),
  uuids: [],
  otherLocks: [],
});

/** What mrt-ingest's HandlerSubmit writes: the payload is a file on ingest's own disk. */
const merritts = { batchID: 'bid-1', filename: 'object.zip', type: 'container' };

describe('doctor notes: batches left pending for Merritt’s ingest', () => {
  it('tells a pending batch whose payload only Merritt’s ingest can read, with the reason', () => {
    const notes = batchNotes(
      scanOf([
        batch('bid0000000001', { status: 'Pending' }, merritts),
        batch('bid0000000002', { status: 'pending' }, { payload_url: '/var/ingest/queue/x.zip' }),
      ]),
    );
    expect(notes.map((n) => [n.code, n.item, n.path])).toEqual([
      ['BATCH_LEFT_PENDING', 'bid0000000001', '/batches/bid0000000001'],
      ['BATCH_LEFT_PENDING', 'bid0000000002', '/batches/bid0000000002'],
    ]);
    expect(notes[0]!.message).toMatch(
      /^batch bid0000000001 is left pending for Merritt's ingest: .*"object\.zip"/,
    );
    expect(notes[1]!.message).toContain('/var/ingest/queue/x.zip');
  });

  it('says nothing of batches the engine can expand, of batches no longer pending, or of unreadable ones', () => {
    const notes = batchNotes(
      scanOf([
        batch('bid0000000003', { status: 'Pending' }, { payload_url: 'https://example.org/m.checkm' }),
        batch('bid0000000004', { status: 'Processing' }, merritts),
        batch('bid0000000005', 'not json', merritts),
        batch('bid0000000006', { status: 'Pending' }, 'not json'),
      ]),
    );
    expect(notes).toEqual([]);
  });
});
