import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { workDirOf, type DownloadRecord } from '../../../src/steps/ingest-contracts.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { createDownloadStep } from '../../../src/steps/job/download.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { renameInZip, tarOf, zipOf } from '../../support/archives.js';
import { bytes, hanging, startHttpFixture, type HttpFixture } from '../../support/http-fixtures.js';
import { jobRecordOf, testIngestSettings } from '../../support/intake-fixtures.js';

const log = pino({ level: 'silent' });
const hex = (algorithm: string, data: Buffer | string) => createHash(algorithm).update(data).digest('hex');
const FIELDS = ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName'];
const args = (job: JobRecord) => ({ job, signal: new AbortController().signal, log });

describe('downloading a job', () => {
  let http: HttpFixture;
  let dir: string;
  let settings: IngestSettings;
  let fetcher: Fetcher;
  const A = randomBytes(200_000);
  const B = Buffer.from('bravo');
  const C = Buffer.from('charlie');

  beforeAll(async () => {
    http = await startHttpFixture();
    dir = await mkdtemp(join(tmpdir(), 'intake-steps-'));
    settings = testIngestSettings(dir);
    fetcher = createFetcher(settings.fetch);
    http.route('/f/a.bin', bytes(A));
    http.route('/f/b.txt', bytes(B));
    http.route('/f/c%20d.txt', bytes(C));
    const rows = [
      {
        'nfo:fileUrl': http.url('/f/a.bin'),
        'nfo:hashAlgorithm': 'md5',
        'nfo:hashValue': hex('md5', A),
        'nfo:fileSize': String(A.length),
      },
      {
        'nfo:fileUrl': http.url('/f/b.txt'),
        'nfo:hashAlgorithm': 'SHA-1',
        'nfo:hashValue': hex('sha1', B),
        'nfo:fileName': 'sub/dir/b.txt',
      },
      { 'nfo:fileUrl': http.url('/f/c%20d.txt') },
    ];
    http.route('/m/object.checkm', bytes(serializeCheckm(FIELDS, rows)));
  });
  afterAll(async () => {
    await fetcher.close();
    await http.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('downloading', () => {
    const download = () => createDownloadStep({ fetcher, settings });
    const record = async (job: JobRecord): Promise<DownloadRecord> =>
      JSON.parse(
        await readFile(join(workDirOf(settings.workRoot, job.batchId, job.jobId), 'download.json'), 'utf8'),
      ) as DownloadRecord;

    it('fetches every file of an object manifest byte for byte and writes download.json last', async () => {
      const job = jobRecordOf(
        { payload_type: 'object_manifest', payload_url: http.url('/m/object.checkm'), local_id: 'L9' },
        { metadata: { erc_who: 'Ann' }, identifiers: { primary_id: 'ark:/1/x', local_id: ['L9'] } },
      );
      const work = workDirOf(settings.workRoot, job.batchId, job.jobId);
      await mkdir(join(work, 'producer'), { recursive: true });
      await writeFile(join(work, 'producer', 'stale.txt'), 'from an earlier run');
      expect(await download()(args(job))).toEqual({ spaceNeeded: A.length + B.length + C.length });
      expect((await readFile(join(work, 'producer', 'a.bin'))).equals(A)).toBe(true);
      expect((await readFile(join(work, 'producer', 'sub/dir/b.txt'))).equals(B)).toBe(true);
      expect((await readFile(join(work, 'producer', 'c d.txt'))).equals(C)).toBe(true);
      expect(existsSync(join(work, 'producer', 'stale.txt'))).toBe(false);
      expect(await record(job)).toEqual({
        files: [
          {
            path: 'producer/a.bin',
            size: A.length,
            digest: { algorithm: 'md5', value: hex('md5', A) },
            sourceUrl: http.url('/f/a.bin'),
            // Taken in the same pass, so processing does not read the file again.
            sha256: hex('sha256', A),
            mimeType: 'application/octet-stream',
          },
          {
            path: 'producer/sub/dir/b.txt',
            size: 5,
            digest: { algorithm: 'sha1', value: hex('sha1', B) },
            sourceUrl: http.url('/f/b.txt'),
            sha256: hex('sha256', B),
            mimeType: 'text/plain',
          },
          {
            path: 'producer/c d.txt',
            size: 7,
            digest: { algorithm: 'sha256', value: hex('sha256', C) },
            sourceUrl: http.url('/f/c%20d.txt'),
            mimeType: 'text/plain',
          },
        ],
        object: { primaryIdentifier: 'ark:/1/x', localIdentifier: 'L9', erc: { who: 'Ann' } },
      });
    });

    it('a file whose digest does not match fails the job naming the file, and leaves no download.json', async () => {
      const rows = [
        {
          'nfo:fileUrl': http.url('/f/b.txt'),
          'nfo:hashAlgorithm': 'md5',
          'nfo:hashValue': '0'.repeat(32),
          'nfo:fileName': 'b.txt',
        },
      ];
      http.route('/m/bad-digest.checkm', bytes(serializeCheckm(FIELDS, rows)));
      const job = jobRecordOf({
        payload_type: 'object_manifest',
        payload_url: http.url('/m/bad-digest.checkm'),
      });
      await expect(download()(args(job))).rejects.toMatchObject({
        code: 'DIGEST_MISMATCH',
        message: expect.stringMatching(
          /^file "b\.txt" could not be downloaded: .*digest mismatch: expected md5:0{32}, got md5:/,
        ) as unknown,
      });
      const work = workDirOf(settings.workRoot, job.batchId, job.jobId);
      expect(existsSync(join(work, 'download.json'))).toBe(false);
      expect(await readdir(join(work, 'producer'))).toEqual([]);
    });

    it('a missing file fails the job naming the file and the status', async () => {
      const job = jobRecordOf({ payload_type: 'file', payload_url: http.url('/f/missing.txt') });
      await expect(download()(args(job))).rejects.toThrow(
        /file "missing\.txt" could not be downloaded: .*HTTP 404/,
      );
    });

    it('a manifest file name that climbs out of the object is refused as a corrupt manifest', async () => {
      const rows = [{ 'nfo:fileUrl': http.url('/f/b.txt'), 'nfo:fileName': '../../b.txt' }];
      http.route('/m/climb.checkm', bytes(serializeCheckm(FIELDS, rows)));
      const job = jobRecordOf({ payload_type: 'object_manifest', payload_url: http.url('/m/climb.checkm') });
      await expect(download()(args(job))).rejects.toMatchObject({
        code: 'MANIFEST_INVALID',
        message: expect.stringContaining('line 4: file name "../../b.txt" is not allowed') as unknown,
      });
    });

    it('unpacks a zip and a tar.gz container into producer/ and removes the container', async () => {
      const content = [
        { name: 'x.txt', data: 'ex' },
        { name: 'd/y.txt', data: 'why' },
      ];
      const zip = await zipOf(content);
      http.route('/c/obj.zip', bytes(zip));
      http.route('/c/obj.tar.gz', bytes(await tarOf(content, join(dir, 'tar-src'), true)));
      for (const path of ['/c/obj.zip', '/c/obj.tar.gz']) {
        const job = jobRecordOf({ payload_type: 'container', payload_url: http.url(path) });
        const work = workDirOf(settings.workRoot, job.batchId, job.jobId);
        expect(await download()(args(job))).toEqual({ spaceNeeded: 5 });
        expect(await readFile(join(work, 'producer', 'd', 'y.txt'), 'utf8')).toBe('why');
        expect((await record(job)).files.map((f) => [f.path, f.sourceUrl]).sort()).toEqual([
          ['producer/d/y.txt', http.url(path)],
          ['producer/x.txt', http.url(path)],
        ]);
        expect(existsSync(join(work, 'container'))).toBe(false);
      }
    });

    it('a container with a ../ entry or a bomb fails the job', async () => {
      const hostile = renameInZip(await zipOf([{ name: 'xx/e.txt', data: 'e' }]), 'xx/e.txt', '../e.txt');
      http.route('/c/evil.zip', bytes(hostile));
      http.route('/c/bomb.zip', bytes(await zipOf([{ name: 'z', data: Buffer.alloc(4 << 20) }])));
      const evil = jobRecordOf({ payload_type: 'container', payload_url: http.url('/c/evil.zip') });
      await expect(download()(args(evil))).rejects.toMatchObject({ code: 'CONTAINER_INVALID' });
      const bomb = jobRecordOf({ payload_type: 'container', payload_url: http.url('/c/bomb.zip') });
      await expect(download()(args(bomb))).rejects.toMatchObject({
        code: 'CONTAINER_TOO_LARGE',
        message: expect.stringContaining('container bomb.zip') as unknown,
      });
      expect(existsSync(join(workDirOf(settings.workRoot, bomb.batchId, bomb.jobId), 'download.json'))).toBe(
        false,
      );
    });

    it('an abort stops the download at once with the abort reason and writes no record', async () => {
      http.route('/f/slow.bin', hanging());
      const job = jobRecordOf({ payload_type: 'file', payload_url: http.url('/f/slow.bin') });
      const controller = new AbortController();
      const reason = new Error('lock lost');
      setTimeout(() => controller.abort(reason), 50);
      await expect(download()({ job, signal: controller.signal, log })).rejects.toBe(reason);
      expect(existsSync(join(workDirOf(settings.workRoot, job.batchId, job.jobId), 'download.json'))).toBe(
        false,
      );
    });
  });
});
