import { describe, expect, it } from 'vitest';
import { LEFT_PENDING, unexpandableReason } from '../../../src/queue/batches/expandable.js';

describe('which pending batches this engine can expand', () => {
  it("leaves a batch Merritt's ingest wrote: its payload is a file on ingest's disk, no payload_url", () => {
    // The keys mrt-ingest's batchProcess/HandlerSubmit puts in the submission it hands to Batch.createBatch.
    const merritt = {
      batchID: 'bid-3c5e5d7e-6b3f-4c1a-9f53-0f2a4c7f1b2e',
      profile: 'merritt_demo_content',
      type: 'file',
      size: 1234,
      filename: 'object.zip',
      update: false,
      submitter: 'depositor',
      notificationFormat: 'xml',
      submissionDate: '2026-11-21T09:34:25-0800',
    };
    const reason = unexpandableReason(merritt);
    expect(reason?.startsWith(LEFT_PENDING)).toBe(true);
    expect(reason).toContain('"object.zip"');
    expect(reason).toContain('queue/bid-3c5e5d7e-6b3f-4c1a-9f53-0f2a4c7f1b2e');
  });

  it('leaves a batch whose payload_url is a bare path on another host', () => {
    expect(unexpandableReason({ payload_url: '/dpr2/ingest_home/queue/bid-1/object.zip' })).toContain(
      'is a path on the disk of the host that wrote it',
    );
  });

  it("takes this engine's own submissions: a payload URL with a scheme", () => {
    for (const payload_url of ['https://example.org/a.checkm', 'file:///data/incoming/a.zip'])
      expect(unexpandableReason({ profile_name: 'demo', payload_url, type: 'file' })).toBeUndefined();
  });
});
