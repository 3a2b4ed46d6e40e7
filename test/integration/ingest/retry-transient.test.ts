import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryPolicySchema } from '../../../src/engine/retry/policy.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import { currentRetry } from '../../../src/queue/jobs/retry-record.js';
import { RETRY_POLICY, writePolicy } from '../../../src/queue/policies/store.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { bytes, failing, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Issue 34, checked from outside "with file servers that answer 503 for a while ... digests that
// never match": the real download step's failures are classified, a 503 is tried again by the
// engine itself after a backoff, a digest that never matches fails the job at once.

const chroot = useZkChroot();

describe('retry policies with the real ingest steps', () => {
  let http: HttpFixture;
  let dir: string;
  let ctx: QueueContext;
  let ingest: IngestEngine | undefined;

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-retry-'));
    ingest = await startIngestEngine(chroot, testIngestSettings(dir), {
      retrying: 'collection: retrying\npriority: 5\n',
    });
    ctx = ingest.ctx;
    await writePolicy(ctx, RETRY_POLICY, retryPolicySchema, { default: { first_delay: '300ms', jitter: 0 } });
  });
  afterAll(async () => {
    await ingest?.stop();
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A one-file object whose file `path` is served by the fixture; its batch id. */
  async function submitObject(name: string, path: string, digest?: string): Promise<string> {
    const columns = [
      'nfo:fileUrl',
      'nfo:fileSize',
      'nfo:fileName',
      ...(digest ? ['nfo:hashAlgorithm', 'nfo:hashValue'] : []),
    ];
    const row: Record<string, string> = {
      'nfo:fileUrl': http.url(path),
      'nfo:fileSize': '5',
      'nfo:fileName': 'a.txt',
    };
    if (digest) Object.assign(row, { 'nfo:hashAlgorithm': 'md5', 'nfo:hashValue': digest });
    http.route(`/${name}.checkm`, bytes(serializeCheckm(columns, [row])));
    const { bid } = await createBatch(ctx, {
      profile_name: 'retrying',
      submitter: 'test',
      payload_url: http.url(`/${name}.checkm`),
      type: 'object-manifest',
    });
    return bid;
  }

  it('a file server that answers 503 for a while: the job waits, tries again and completes', async () => {
    // The step's own retries (one here) pass the first two; the engine's policy the rest.
    http.route('/busy.txt', failing(5, 503, bytes('hello')));
    const bid = await submitObject('busy', '/busy.txt');
    const [ref] = await eventually(
      () => listBatchJobs(ctx, bid),
      (jobs) => jobs.length === 1,
      30_000,
    );
    const waiting = await eventually(
      () => loadJob(ctx, ref!.jid),
      (job) => currentRetry(job.retry, job)?.next_attempt !== undefined,
      30_000,
      20,
    );
    expect(waiting.status).toBe('downloading');
    expect(currentRetry(waiting.retry, waiting)).toMatchObject({ class: 'transient', code: 'HTTP_503' });
    expect(waiting.message).toMatch(
      /^transient failure \(HTTP_503\), attempt 1 of 5: .*503.*; next attempt at /,
    );
    expect((await batchSettled(ctx, bid)).status).toBe('completed');
    const done = await loadJob(ctx, ref!.jid);
    expect(done).toMatchObject({ status: 'completed', retryCount: 0 });
    expect(http.hits('/busy.txt', 'GET')).toBe(6);
  }, 60_000);

  it('a digest that never matches fails the job at once, its class permanent', async () => {
    http.route('/wrong.txt', bytes('hello'));
    const bid = await submitObject('wrong', '/wrong.txt', '00000000000000000000000000000000');
    expect((await batchSettled(ctx, bid)).status).toBe('failed');
    const [ref] = await listBatchJobs(ctx, bid);
    const failed = await loadJob(ctx, ref!.jid);
    expect(failed.status).toBe('failed');
    expect(currentRetry(failed.retry, failed)).toMatchObject({ class: 'permanent', failures: 0 });
    expect(http.hits('/wrong.txt', 'GET')).toBe(1);
  }, 60_000);
});
