import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Limits mean what they say (issue 32): a 60 s space wait once gave up at 89 s, at the next of
// the engine's re-evaluations (every 30 s). The step now says when its limit falls due and the
// engine looks at the job again then.

const chroot = useZkChroot();
const LIMIT_MS = 3_000;

describe('a space wait with a limit, on the engine’s default re-evaluation interval (30 s)', () => {
  let http: HttpFixture;
  let dir: string;
  let ctx: QueueContext;
  let settings: IngestSettings;
  let ingest: IngestEngine | undefined;

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-space-wait-'));
    // Any disk in use is "too full" under this fraction: the job waits for space, then gives up.
    settings = { ...testIngestSettings(dir), maxUsedFraction: 0.000_001, spaceWaitLimitMs: LIMIT_MS };
    ingest = await startIngestEngine(chroot, settings, { limits: 'collection: limits\npriority: 5\n' });
    ctx = ingest.ctx;
  });
  afterAll(async () => {
    await ingest?.stop();
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives up within 10 % of its limit, saying how long it waited', async () => {
    http.route('/a.txt', bytes('hello'));
    const rows = [{ 'nfo:fileUrl': http.url('/a.txt'), 'nfo:fileSize': '5', 'nfo:fileName': 'a.txt' }];
    http.route(
      '/object.checkm',
      bytes(serializeCheckm(['nfo:fileUrl', 'nfo:fileSize', 'nfo:fileName'], rows)),
    );
    const { bid } = await createBatch(ctx, {
      profile_name: 'limits',
      submitter: 'test',
      payload_url: http.url('/object.checkm'),
      type: 'object-manifest',
    });
    const [ref] = await eventually(
      () => listBatchJobs(ctx, bid),
      (jobs) => jobs.length === 1,
      30_000,
    );
    const failed = await eventually(
      () => loadJob(ctx, ref!.jid),
      (j) => j.status === 'failed' || j.status === 'completed',
      60_000,
      100,
    );
    expect(failed.status).toBe('failed');
    const waited = /^gave up after waiting (\d+\.\d) s for working space \(the limit is 3\.0 s\)/.exec(
      failed.message ?? '',
    );
    expect(waited, failed.message ?? '').not.toBeNull();
    // Measured by the step from the job's arrival in provisioning: at least the limit, and within
    // 10 % of it (before: the next re-evaluation, up to 30 s later).
    expect(Number(waited![1])).toBeGreaterThanOrEqual(LIMIT_MS / 1000);
    expect(Number(waited![1])).toBeLessThanOrEqual((LIMIT_MS * 1.1) / 1000);
  });
});
