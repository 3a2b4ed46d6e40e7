import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requeueJob } from '../../../src/admin/jobs.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob, type JobRecord } from '../../../src/queue/jobs/load.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { startSmtpFixture, type SmtpFixture } from '../../support/smtp-fixture.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Nothing waits forever (issue 19): an object too large for this machine, a job that waits too
// long for space, and a batch that cannot be expanded each end failed with a message that says
// why, and their batch reports it: real ingest steps, a real HTTP server and a real SMTP server.

const chroot = useZkChroot();
const TiB = 1024 ** 4;

describe('bounded waits in provisioning and expansion', () => {
  let http: HttpFixture;
  let smtp: SmtpFixture;
  let dir: string;
  let ctx: QueueContext;
  let settings: IngestSettings;
  let ingest: IngestEngine | undefined;

  /** An object manifest of one file, declaring `size` bytes, served by the fixture. */
  const objectManifest = (name: string, size: number): string => {
    http.route(`/${name}/a.txt`, bytes('hello'));
    http.route(
      `/${name}/object.checkm`,
      bytes(
        serializeCheckm(
          ['nfo:fileUrl', 'nfo:fileSize', 'nfo:fileName'],
          [
            {
              'nfo:fileUrl': http.url(`/${name}/a.txt`),
              'nfo:fileSize': String(size),
              'nfo:fileName': 'a.txt',
            },
          ],
        ),
      ),
    );
    return http.url(`/${name}/object.checkm`);
  };
  const submit = async (payloadUrl: string, type: string): Promise<string> =>
    (
      await createBatch(ctx, {
        profile_name: 'bounded',
        submitter: 'depositor',
        payload_url: payloadUrl,
        type,
      })
    ).bid;
  const onlyJob = async (bid: string): Promise<JobRecord> => {
    const [ref] = await eventually(
      () => listBatchJobs(ctx, bid),
      (jobs) => jobs.length === 1,
      30_000,
    );
    return loadJob(ctx, ref!.jid);
  };
  const settled = (jid: string, retryCount = 0) =>
    eventually(
      () => loadJob(ctx, jid),
      (j) => j.retryCount === retryCount && (j.status === 'failed' || j.status === 'completed'),
      60_000,
      100,
    );
  const batchEnded = (bid: string) =>
    eventually(
      () => loadBatch(ctx, bid),
      (b) => b.status === 'failed' || b.status === 'completed',
      60_000,
      100,
    );
  const mailsAbout = (bid: string) => smtp.messages.filter((m) => m.headers['x-merritt-batch'] === bid);

  beforeAll(async () => {
    http = await startHttpFixture();
    smtp = await startSmtpFixture();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-bounded-'));
    settings = {
      ...testIngestSettings(dir),
      smtp: { host: '127.0.0.1', port: smtp.port, from: 'merritt@example.org' },
    };
    const profile =
      'collection: bounded\npriority: 5\nresponseType: json\nnotifications: [depositor@example.org]\n';
    // Jobs waiting for space are looked at again this often.
    ingest = await startIngestEngine(chroot, settings, { bounded: profile }, { provisioningIntervalMs: 200 });
    ctx = ingest.ctx;
  });
  afterAll(async () => {
    await ingest?.stop();
    await http?.close();
    await smtp?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an object larger than any working space here fails at provisioning with its size and the limit; its batch reports; it can be requeued', async () => {
    const size = 900 * TiB;
    const bid = await submit(objectManifest('huge', size), 'object-manifest');
    const { jobId } = await onlyJob(bid);
    const job = await settled(jobId);
    expect(job).toMatchObject({ status: 'failed', lastSuccessfulStatus: 'estimating', spaceNeeded: size });
    expect(job.message).toMatch(
      new RegExp(
        `^the object needs 900\\.0 TiB \\(${size} bytes\\), more than .* \\(\\d+ bytes\\), the most a job may use of`,
      ),
    );
    const batch = await batchEnded(bid);
    expect(batch.status).toBe('failed');
    expect(mailsAbout(bid)).toHaveLength(1);
    expect(mailsAbout(bid)[0]!.text).toContain(`${jobId}  the object needs 900.0 TiB`);

    // Requeued as usual: back to provisioning (its last success was estimating), where it fails
    // again for the same reason, and the batch reports again.
    expect(await requeueJob(ctx, jobId)).toMatchObject({ status: 'provisioning', retryCount: 1 });
    expect(await settled(jobId, 1)).toMatchObject({ status: 'failed', message: job.message });
    await eventually(
      () => mailsAbout(bid).length,
      (n) => n === 2,
      30_000,
    );
  });

  it('a job waiting for space says how long it has waited, gives up after the configured time, and runs once requeued', async () => {
    // Any disk in use is "too full" under this fraction; the object itself is small.
    settings.maxUsedFraction = 0.000_001;
    settings.spaceWaitLimitMs = 3_600_000;
    try {
      const bid = await submit(objectManifest('small', 5), 'object-manifest');
      const { jobId } = await onlyJob(bid);
      // Each evaluation says how long the job has waited so far: watch it grow.
      const waitedSoFar = (j: JobRecord): number =>
        Number(/^waiting (\d+\.\d) s so far for working space/.exec(j.message ?? '')?.[1] ?? -1);
      const waiting = await eventually(
        () => loadJob(ctx, jobId),
        (j) => waitedSoFar(j) >= 0.4 || j.status === 'failed' || j.status === 'completed',
        30_000,
      );
      expect(waiting.status).toBe('provisioning');
      expect(waiting.message).toMatch(
        /^waiting \d+\.\d s so far for working space \(gives up after 60 min\): needs 5 B, .* free of /,
      );
      // The limit lowered below the wait: the next evaluation gives up, saying how long it waited.
      settings.spaceWaitLimitMs = 1_500;
      const failed = await settled(jobId);
      expect(failed.status).toBe('failed');
      const waited =
        /^gave up after waiting (\d+\.\d) s for working space \(the limit is 1\.5 s\): needs 5 B/.exec(
          failed.message ?? '',
        );
      expect(waited, failed.message ?? '').not.toBeNull();
      expect(Number(waited![1])).toBeGreaterThanOrEqual(1.5);
      await batchEnded(bid);
      expect(mailsAbout(bid)[0]!.text).toContain('gave up after waiting');

      // Space again: a requeue takes it on from provisioning to completed.
      settings.maxUsedFraction = 0.99;
      await requeueJob(ctx, jobId);
      expect(await settled(jobId, 1)).toMatchObject({ status: 'completed' });
    } finally {
      settings.maxUsedFraction = 0.99;
      settings.spaceWaitLimitMs = 86_400_000;
    }
  });

  it('a batch that fails while being expanded sends its report saying why, and ends failed', async () => {
    http.route(
      '/bad/batch.checkm',
      bytes('%checkm_0.7\n%fields | nfo:fileUrl | nfo:fileSize\nhttp://x/y | not-a-size\n'),
    );
    const bid = await submit(http.url('/bad/batch.checkm'), 'batch-manifest');
    const batch = await batchEnded(bid);
    expect(batch.status).toBe('failed');
    expect(batch.message).toMatch(/line 3/);
    const mails = mailsAbout(bid);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.rcptTo).toEqual(['depositor@example.org']);
    expect(mails[0]!.headers.subject).toMatch(/^Ingest: FAIL -- Submission Processed: .+;$/);
    expect(mails[0]!.text).toContain(`The batch could not be expanded into jobs: ${batch.message}`);
  });
});
