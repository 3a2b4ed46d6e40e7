import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireBatch } from '../../../src/queue/batches/acquire.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { listBatchJobs } from '../../../src/queue/batches/jobs.js';
import type { BatchRecord } from '../../../src/queue/batches/load.js';
import { commitBatchTransition } from '../../../src/queue/batches/transition.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadJob, type JobRecord } from '../../../src/queue/jobs/load.js';
import type { Submission } from '../../../src/queue/tree/records.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { ManifestError } from '../../../src/steps/intake-errors.js';
import { createExpandStep } from '../../../src/steps/batch/expand.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { loadProfiles } from '../../../src/steps/formats/profiles/profiles.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const BATCH_FIELDS = [
  'nfo:fileUrl',
  'nfo:hashAlgorithm',
  'nfo:hashValue',
  'nfo:fileSize',
  'nfo:fileName',
  'mrt:primaryIdentifier',
  'mrt:localIdentifier',
  'mrt:creator',
  'mrt:title',
  'mrt:date',
];

describe('expanding a batch into jobs', () => {
  let ctx: QueueContext;
  let http: HttpFixture;
  let dir: string;
  let settings: IngestSettings;
  let fetcher: Fetcher;
  let expand: ReturnType<typeof createExpandStep>;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    http = await startHttpFixture();
    dir = await mkdtemp(join(tmpdir(), 'intake-expand-'));
    settings = testIngestSettings(dir);
    await mkdir(settings.profilesDir, { recursive: true });
    await writeFile(
      join(settings.profilesDir, 'demo.yaml'),
      'collection: demo_c\npriority: 7\nresponseType: xml\n',
    );
    fetcher = createFetcher(settings.fetch);
    expand = createExpandStep({ fetcher, profiles: await loadProfiles(settings.profilesDir), settings });
    http.route('/files/a.txt', bytes('hello'));
  });
  afterAll(async () => {
    await fetcher.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
  });

  const submission = (over: Partial<Submission>): Submission => ({
    profile_name: 'demo',
    submitter: 'ann',
    payload_url: http.url('/files/a.txt'),
    type: 'file',
    ...over,
  });

  /** Creates and acquires a batch (now processing, lock held), as the batch consumer does before expanding. */
  async function processingBatch(sub: Submission): Promise<BatchRecord> {
    const { bid } = await createBatch(ctx, sub);
    const acquired = await acquireBatch(ctx, 'expand', { candidates: [bid] });
    if (!acquired) throw new Error(`could not acquire ${bid}`);
    return commitBatchTransition(ctx, acquired, { type: 'batch.acquired' }, { release: false });
  }

  const run = (batch: BatchRecord) =>
    expand({ batch, signal: new AbortController().signal, log: pino({ level: 'silent' }), queue: ctx });

  async function jobsOf(bid: string): Promise<JobRecord[]> {
    const refs = await listBatchJobs(ctx, bid);
    const jobs = await Promise.all(refs.map(({ jid }) => loadJob(ctx, jid)));
    return jobs.sort(
      (a, b) => Number(a.configuration.manifest_position) - Number(b.configuration.manifest_position),
    );
  }

  it('a single file becomes one pending job with the profile settings, fetched at once only with a digest', async () => {
    const batch = await processingBatch(submission({ local_id: 'L-1', erc_who: 'Ann', file_size: 5 }));
    expect(await run(batch)).toEqual({ jobCount: 1 });
    const [job, ...rest] = await jobsOf(batch.batchId);
    expect(rest).toEqual([]);
    expect(job).toMatchObject({
      status: 'pending',
      priority: 7,
      configuration: {
        profile_name: 'demo',
        submitter: 'ann',
        payload_url: http.url('/files/a.txt'),
        payload_type: 'file',
        response_type: 'xml',
        collection: 'demo_c',
        local_id: 'L-1',
        file_size: 5,
        manifest_position: 0,
      },
      identifiers: { primary_id: '', local_id: ['L-1'] },
      metadata: { erc_who: 'Ann' },
    });
    expect(http.hits('/files/a.txt')).toBe(0);
  });

  it('a single file whose digest matches is verified at expansion and created pending', async () => {
    const batch = await processingBatch(
      submission({ digest_type: 'sha-256', digest_value: sha256('hello') }),
    );
    await run(batch);
    const [job] = await jobsOf(batch.batchId);
    expect(job?.status).toBe('pending');
    expect(job?.configuration).toMatchObject({ digest_type: 'sha256', digest_value: sha256('hello') });
    expect(http.hits('/files/a.txt')).toBe(1);
    expect(existsSync(join(settings.workRoot, batch.batchId, 'expand'))).toBe(false);
  });

  it('a single file whose digest does not match is created failed, naming both digests', async () => {
    const wrong = 'f'.repeat(64);
    const batch = await processingBatch(submission({ digest_type: 'sha256', digest_value: wrong }));
    expect(await run(batch)).toEqual({ jobCount: 1 });
    const [job] = await jobsOf(batch.batchId);
    expect(job?.status).toBe('failed');
    expect(job?.lastSuccessfulStatus).toBeNull();
    expect(job?.message).toContain(`expected sha256:${wrong}`);
    expect(job?.message).toContain(`got sha256:${sha256('hello')}`);
  });

  it('a container and an object manifest each become one job of their payload type', async () => {
    const container = await processingBatch(
      submission({ type: 'container', payload_url: http.url('/c.zip') }),
    );
    await run(container);
    expect((await jobsOf(container.batchId)).map((j) => j.configuration.payload_type)).toEqual(['container']);
    const object = await processingBatch(
      submission({ type: 'object-manifest', payload_url: http.url('/o.checkm') }),
    );
    await run(object);
    const [job] = await jobsOf(object.batchId);
    expect(job?.configuration).toMatchObject({
      payload_type: 'object_manifest',
      payload_url: http.url('/o.checkm'),
    });
  });

  it('a manifest of manifests becomes one job per entry, in manifest order, and expanding again adds none', async () => {
    const rows = [1, 2, 3].map((n) => ({
      'nfo:fileUrl': http.url(`/objects/${n}.checkm`),
      'mrt:primaryIdentifier': n === 2 ? 'ark:/99999/fk2' : '',
      'mrt:localIdentifier': `local-${n}`,
      'mrt:creator': `Creator ${n}`,
      'mrt:title': `Title ${n}`,
      'mrt:date': '2024',
    }));
    http.route('/batch/manifests.checkm', bytes(serializeCheckm(BATCH_FIELDS, rows)));
    const batch = await processingBatch(
      submission({ type: 'batch-manifest', payload_url: http.url('/batch/manifests.checkm') }),
    );
    expect(await run(batch)).toEqual({ jobCount: 3 });
    expect(await run(batch)).toEqual({ jobCount: 3 });
    const jobs = await jobsOf(batch.batchId);
    expect(jobs).toHaveLength(3);
    expect(jobs.map((j) => j.configuration.payload_url)).toEqual(rows.map((r) => r['nfo:fileUrl']));
    expect(
      jobs.every((j) => j.status === 'pending' && j.configuration.payload_type === 'object_manifest'),
    ).toBe(true);
    expect(jobs[1]).toMatchObject({
      configuration: { local_id: 'local-2', manifest_position: 1 },
      identifiers: { primary_id: 'ark:/99999/fk2', local_id: ['local-2'] },
      metadata: { erc_who: 'Creator 2', erc_what: 'Title 2', erc_when: '2024' },
    });
  });

  it('a manifest of containers gives container jobs with each entry digest and size', async () => {
    const md5 = '0123456789abcdef0123456789abcdef';
    const rows = [
      {
        'nfo:fileUrl': http.url('/c/1.zip'),
        'nfo:hashAlgorithm': 'MD5',
        'nfo:hashValue': md5,
        'nfo:fileSize': '10',
      },
      { 'nfo:fileUrl': http.url('/c/2.tgz'), 'nfo:fileName': 'two.tgz' },
    ];
    http.route('/batch/containers.checkm', bytes(serializeCheckm(BATCH_FIELDS, rows)));
    const batch = await processingBatch(
      submission({ type: 'container-batch-manifest', payload_url: http.url('/batch/containers.checkm') }),
    );
    await run(batch);
    const jobs = await jobsOf(batch.batchId);
    expect(jobs.map((j) => j.configuration)).toMatchObject([
      { payload_type: 'container', digest_type: 'md5', digest_value: md5, file_size: 10 },
      { payload_type: 'container', file_name: 'two.tgz' },
    ]);
  });

  it('a corrupt batch manifest throws a ManifestError naming the line, and creates no job', async () => {
    const text = `%checkm_0.7\n%fields | nfo:fileUrl | nfo:fileSize\n${http.url('/o/1')} | 1\n${http.url('/o/2')} | big\n`;
    http.route('/batch/corrupt.checkm', bytes(text));
    const url = http.url('/batch/corrupt.checkm');
    const batch = await processingBatch(submission({ type: 'batch-manifest', payload_url: url }));
    const err = await run(batch).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as ManifestError).message).toBe(
      `batch manifest ${url} line 4: nfo:fileSize "big" is not a size in bytes`,
    );
    expect(await jobsOf(batch.batchId)).toEqual([]);
  });

  it('an unknown profile or submission type fails the expansion with a clear code', async () => {
    const unknownProfile = await processingBatch(submission({ profile_name: 'nobody' }));
    await expect(run(unknownProfile)).rejects.toMatchObject({
      code: 'PROFILE_UNKNOWN',
      message: 'unknown profile "nobody"; known profiles: demo',
    });
    const unknownType = await processingBatch(submission({ type: 'tarball' }));
    await expect(run(unknownType)).rejects.toMatchObject({ code: 'SUBMISSION_INVALID' });
    const badUrl = await processingBatch(submission({ payload_url: 'not a url' }));
    await expect(run(badUrl)).rejects.toMatchObject({ code: 'SUBMISSION_INVALID' });
  });
});
