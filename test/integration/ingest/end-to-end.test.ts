import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccess, loadAccess } from '../../../src/queue/access/requests.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import type { Submission } from '../../../src/queue/tree/records.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { objectDir } from '../../../src/steps/services/storage/layout.js';
import { zipOf } from '../../support/archives.js';
import { startIngestEngine, type IngestEngine } from '../../support/ingest-engine.js';
import { batchJobRecords, batchSettled } from '../../support/batch-settled.js';
import { eventually } from '../../support/eventually.js';
import { bytes, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { testIngestSettings } from '../../support/intake-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

// Every submission type from a real HTTP server through the real ingest steps and the engine,
// to objects in the local store whose files match the depositor's digests byte for byte.

const chroot = useZkChroot();
const FIELDS = ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName'];
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

interface Served {
  name: string;
  data: Buffer;
}

describe('ingest end to end', () => {
  let http: HttpFixture;
  let dir: string;
  let ctx: QueueContext;
  let ingest: IngestEngine | undefined;
  let dataDir: string;

  const serve = (path: string, data: Buffer | string): string => {
    http.route(path, bytes(data));
    return http.url(path);
  };
  const manifestOf = (files: Served[], prefix: string, digest = (f: Served) => sha256(f.data)): string =>
    serializeCheckm(
      FIELDS,
      files.map((f) => ({
        'nfo:fileUrl': serve(`${prefix}/${f.name}`, f.data),
        'nfo:hashAlgorithm': 'sha256',
        'nfo:hashValue': digest(f),
        'nfo:fileSize': String(f.data.length),
        'nfo:fileName': f.name,
      })),
    );
  const submit = async (payloadUrl: string, type: string, extra: Partial<Submission> = {}): Promise<string> =>
    (
      await createBatch(ctx, {
        profile_name: 'e2e',
        submitter: 'depositor',
        payload_url: payloadUrl,
        type,
        ...extra,
      })
    ).bid;
  const finished = (bid: string) => batchSettled(ctx, bid, 60_000);
  const jobsOf = (bid: string): Promise<JobRecord[]> => batchJobRecords(ctx, bid);

  /** The files of the object's first stored version, by path under producer/. */
  function stored(job: JobRecord): Map<string, Buffer> {
    const ark = job.identifiers?.primary_id ?? '';
    expect(ark).toMatch(/^ark:\/99999\/fk4/);
    const base = join(objectDir(dataDir, ark), 'v1', 'producer');
    const manifest = readFileSync(join(objectDir(dataDir, ark), 'v1', 'manifest.checkm'), 'utf8');
    const files = new Map<string, Buffer>();
    for (const line of manifest.split('\n').filter((l) => l.includes('producer/'))) {
      const name = /producer\/([^ |]+)/.exec(line)![1]!;
      files.set(name, readFileSync(join(base, name)));
    }
    return files;
  }

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = mkdtempSync(join(tmpdir(), 'mrtq-e2e-'));
    const settings = testIngestSettings(dir);
    dataDir = settings.dataDir;
    ingest = await startIngestEngine(chroot, settings, {
      e2e: 'collection: e2e\npriority: 5\nresponseType: json\n',
    });
    ctx = ingest.ctx;
  });
  afterAll(async () => {
    await ingest?.stop();
    await http?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an object manifest: the stored files match the manifest digests byte for byte', async () => {
    const files = [
      { name: 'a.txt', data: Buffer.from('hello merritt\n') },
      { name: 'b.bin', data: randomBytes(200_000) },
    ];
    const bid = await submit(serve('/om/object.checkm', manifestOf(files, '/om')), 'object-manifest');
    expect((await finished(bid)).status).toBe('completed');
    const [job] = await jobsOf(bid);
    const store = stored(job!);
    for (const f of files) expect(sha256(store.get(f.name)!)).toBe(sha256(f.data));
    // The working directory goes once the job completed: after its commit, so maybe after the report.
    await eventually(
      () => existsSync(join(dir, 'work', bid, job!.jobId)),
      (exists) => !exists,
      10_000,
    );

    // An access request for the stored object: a zip of it, its URL and size in the token.
    const qid = await createAccess(ctx, 'small', { token: 'tok', ark: job!.identifiers!.primary_id });
    const access = await eventually(
      () => loadAccess(ctx, 'small', qid),
      (r) => r.status !== 'pending' && r.status !== 'processing',
      30_000,
      100,
    );
    expect(access).toMatchObject({ status: 'completed', token: { status: 'available', version: 1 } });
    const zipPath = String(access.token.url).replace('file://', '');
    expect(statSync(zipPath).size).toBe(access.token['cloud-content-byte']);
  });

  it('a single file with the depositor digest, a container, and a manifest of containers', async () => {
    const single = randomBytes(50_000);
    const fileBid = await submit(serve('/single/data.bin', single), 'file', {
      digest_type: 'sha256',
      digest_value: sha256(single),
      file_name: 'data.bin',
    });
    const zipped = [
      { name: 'x/one.txt', data: Buffer.from('one') },
      { name: 'two.txt', data: Buffer.from('two two') },
    ];
    const zip = await zipOf(zipped);
    const containerBid = await submit(serve('/c/object.zip', zip), 'container');
    const containers = serializeCheckm(FIELDS, [
      {
        'nfo:fileUrl': serve('/mc/1.zip', zip),
        'nfo:hashAlgorithm': 'sha256',
        'nfo:hashValue': sha256(zip),
        'nfo:fileSize': String(zip.length),
        'nfo:fileName': '1.zip',
      },
      {
        'nfo:fileUrl': serve('/mc/2.zip', zip),
        'nfo:hashAlgorithm': 'sha256',
        'nfo:hashValue': sha256(zip),
        'nfo:fileSize': String(zip.length),
        'nfo:fileName': '2.zip',
      },
    ]);
    const manyBid = await submit(serve('/mc/batch.checkm', containers), 'container-batch-manifest');

    expect((await finished(fileBid)).status).toBe('completed');
    expect(sha256(stored((await jobsOf(fileBid))[0]!).get('data.bin')!)).toBe(sha256(single));
    expect((await finished(containerBid)).status).toBe('completed');
    const unpacked = stored((await jobsOf(containerBid))[0]!);
    expect(unpacked.get('two.txt')!.toString()).toBe('two two');
    const many = await finished(manyBid);
    expect(many).toMatchObject({ status: 'completed', jobCount: 2 });
  });

  it('a manifest of manifests: a bad digest and a 404 fail only their own jobs; the batch reports them', async () => {
    const good = [{ name: 'g.txt', data: Buffer.from('good') }];
    const bad = [{ name: 'b.txt', data: Buffer.from('bad') }];
    const rows = [
      serve('/mm/good.checkm', manifestOf(good, '/mm/good')),
      serve(
        '/mm/bad.checkm',
        manifestOf(bad, '/mm/bad', () => '0'.repeat(64)),
      ),
      http.url('/mm/missing.checkm'),
      serve('/mm/good2.checkm', manifestOf([{ name: 'h.txt', data: Buffer.from('also good') }], '/mm/good2')),
    ].map((url) => ({ 'nfo:fileUrl': url }));
    const bid = await submit(
      serve('/mm/batch.checkm', serializeCheckm(['nfo:fileUrl'], rows)),
      'batch-manifest',
    );
    const batch = await finished(bid);
    expect(batch).toMatchObject({ status: 'failed', jobCount: 4 });
    const jobs = await jobsOf(bid);
    const failed = jobs.filter((j) => j.status === 'failed');
    expect(jobs.filter((j) => j.status === 'completed')).toHaveLength(2);
    expect(failed).toHaveLength(2);
    const messages = failed.map((j) => j.message ?? '').join('\n');
    expect(messages).toMatch(/b\.txt/);
    expect(messages).toMatch(/digest/i);
    expect(messages).toMatch(/missing\.checkm/);
    const report = JSON.parse((await ctx.zk.getData(`/batches/${bid}/status-report`)).data!.toString()) as {
      failed_jobs: string[];
    };
    expect(report.failed_jobs.sort()).toEqual(failed.map((j) => j.jobId).sort());
  });

  it('a corrupt batch manifest fails the batch with the line named; an unknown profile fails it too', async () => {
    const corrupt = serve(
      '/bad/batch.checkm',
      '%checkm_0.7\n%fields | nfo:fileUrl | nfo:fileSize\nhttp://x/y | not-a-size\n',
    );
    const bid = await submit(corrupt, 'batch-manifest');
    const batch = await finished(bid);
    expect(batch.status).toBe('failed');
    expect(batch.message).toMatch(/line 3/);
    const unknown = (
      await createBatch(ctx, {
        profile_name: 'nope',
        submitter: 's',
        payload_url: http.url('/x'),
        type: 'file',
      })
    ).bid;
    expect((await finished(unknown)).message).toMatch(/nope/);
  });
});
