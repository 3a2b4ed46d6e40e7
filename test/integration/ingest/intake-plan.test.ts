import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { serializeCheckm } from '../../../src/steps/formats/checkm.js';
import { workDirOf } from '../../../src/steps/ingest-contracts.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { createEstimateStep } from '../../../src/steps/job/estimate.js';
import { createFetcher, type Fetcher } from '../../../src/steps/services/fetch/fetch.js';
import { createProvisionStep, type SpaceStats } from '../../../src/steps/job/provision.js';
import { bytes, startHttpFixture, type Handler, type HttpFixture } from '../../support/http-fixtures.js';
import { jobRecordOf, testIngestSettings } from '../../support/intake-fixtures.js';

const log = pino({ level: 'silent' });
const hex = (algorithm: string, data: Buffer | string) => createHash(algorithm).update(data).digest('hex');
const FIELDS = ['nfo:fileUrl', 'nfo:hashAlgorithm', 'nfo:hashValue', 'nfo:fileSize', 'nfo:fileName'];
const args = (job: JobRecord) => ({ job, signal: new AbortController().signal, log });

/** Counts HEAD requests in flight at once, answering each after `delayMs`. */
function slowHead(size: number, delayMs: number, gauge: { now: number; max: number }): Handler {
  return (_req, res) => {
    gauge.now += 1;
    gauge.max = Math.max(gauge.max, gauge.now);
    setTimeout(() => {
      gauge.now -= 1;
      res.writeHead(200, { 'content-length': size }).end();
    }, delayMs);
  };
}

describe('planning a job: estimating and provisioning', () => {
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

  describe('estimating', () => {
    it('sums manifest sizes and HEAD sizes, with at most `concurrency` HEADs at once', async () => {
      const gauge = { now: 0, max: 0 };
      const rows = Array.from({ length: 7 }, (_, i) => ({ 'nfo:fileUrl': http.url(`/h/${i}`) }));
      rows.forEach((_, i) => http.route(`/h/${i}`, slowHead(1000, 40, gauge)));
      rows.push({ 'nfo:fileUrl': http.url('/h/gone') }, {
        'nfo:fileUrl': http.url('/h/x'),
        'nfo:fileSize': '5',
      } as never);
      http.route('/m/heads.checkm', bytes(serializeCheckm(FIELDS, rows)));
      const estimate = createEstimateStep({ fetcher, settings });
      const job = jobRecordOf({ payload_type: 'object_manifest', payload_url: http.url('/m/heads.checkm') });
      expect(await estimate(args(job))).toEqual({ spaceNeeded: 7005 });
      expect(gauge.max).toBe(settings.fetch.concurrency);
      expect(http.hits('/h/x')).toBe(0);
    });

    it('raises the priority number of a job above largeJobBytes', async () => {
      const estimate = createEstimateStep({ fetcher, settings: { ...settings, largeJobBytes: 100_000 } });
      const job = jobRecordOf({ payload_type: 'object_manifest', payload_url: http.url('/m/object.checkm') });
      expect(await estimate(args(job))).toEqual({
        spaceNeeded: A.length + B.length + C.length,
        priority: 20,
      });
      const already = jobRecordOf(job.configuration, { priority: 30 });
      expect(await estimate(args(already))).toEqual({ spaceNeeded: A.length + B.length + C.length });
    });

    it('never fails: an unreadable manifest or a bad job counts 0', async () => {
      const estimate = createEstimateStep({ fetcher, settings });
      const missing = jobRecordOf({
        payload_type: 'object_manifest',
        payload_url: http.url('/m/none.checkm'),
      });
      expect(await estimate(args(missing))).toEqual({ spaceNeeded: 0 });
      expect(await estimate(args(jobRecordOf({ payload_type: 'odd', payload_url: 'x' })))).toEqual({
        spaceNeeded: 0,
      });
      const file = jobRecordOf({ payload_type: 'file', payload_url: http.url('/f/b.txt') });
      expect(await estimate(args(file))).toEqual({ spaceNeeded: B.length });
    });
  });

  describe('provisioning', () => {
    const disk = (freeBlocks: number): SpaceStats => ({
      bsize: 1024,
      blocks: 1000,
      bfree: freeBlocks,
      bavail: freeBlocks,
    });

    it('proceeds and creates the working directory while the disk stays under the threshold', async () => {
      const provision = createProvisionStep({
        settings: { ...settings, maxUsedFraction: 0.7 },
        statfs: () => Promise.resolve(disk(500)),
      });
      const job = jobRecordOf({}, { spaceNeeded: 100 * 1024 });
      expect(await provision(args(job))).toEqual({ hasSpace: true });
      expect(existsSync(workDirOf(settings.workRoot, job.batchId, job.jobId))).toBe(true);
    });

    it('holds a job that would fill the disk above the threshold, saying needed, free and limit', async () => {
      const provision = createProvisionStep({
        settings: { ...settings, maxUsedFraction: 0.7 },
        statfs: () => Promise.resolve(disk(500)),
      });
      const job = jobRecordOf({}, { spaceNeeded: 300 * 1024 });
      const result = await provision(args(job));
      expect(result.hasSpace).toBe(false);
      expect(result.message).toMatch(
        /^waiting \d+\.\d s so far for working space \(gives up after 24\.0 h\): /,
      );
      expect(result.message).toContain(
        `needs 300.0 KiB, 500.0 KiB free of 1000.0 KiB on ${settings.workRoot}; it would be 80.0% full, the limit is 70.0%`,
      );
      expect(existsSync(workDirOf(settings.workRoot, job.batchId, job.jobId))).toBe(false);
    });

    it('asks how long a job has waited (a ZooKeeper read) only when it cannot go on', async () => {
      const asked: string[] = [];
      const provision = createProvisionStep({
        settings: { ...settings, maxUsedFraction: 0.7 },
        statfs: () => Promise.resolve(disk(500)),
        waited: (job) => {
          asked.push(job.jobId);
          return Promise.resolve(90_000);
        },
      });
      const fits = jobRecordOf({}, { spaceNeeded: 100 * 1024 });
      expect(await provision(args(fits))).toEqual({ hasSpace: true });
      expect(asked).toEqual([]);
      const waits = { ...jobRecordOf({}, { spaceNeeded: 300 * 1024 }), jobId: 'jid0000000077' };
      const held = await provision(args(waits));
      expect(held.hasSpace).toBe(false);
      expect(held.message).toMatch(/^waiting 90 s so far for working space/);
      expect(asked).toEqual(['jid0000000077']);
    });

    it('holds a job that needs more than is free, whatever the threshold', async () => {
      const provision = createProvisionStep({
        settings: { ...settings, maxUsedFraction: 1 },
        statfs: () => Promise.resolve(disk(10)),
      });
      expect((await provision(args(jobRecordOf({}, { spaceNeeded: 11 * 1024 })))).hasSpace).toBe(false);
    });

    it('gives up on a job whose space cannot be read once it has waited as long as allowed', async () => {
      const provision = (waitedMs: number) =>
        createProvisionStep({
          settings: { ...settings, spaceWaitLimitMs: 60_000 },
          statfs: () => Promise.reject(new Error('EIO: i/o error, statfs')),
          waited: () => Promise.resolve(waitedMs),
        });
      const job = jobRecordOf({});
      expect(await provision(30_000)(args(job))).toEqual({
        hasSpace: false,
        retryInMs: 30_000,
        message:
          'waiting 30 s so far for working space (gives up after 60 s): cannot tell whether there is working space: EIO: i/o error, statfs',
      });
      const gaveUp = await provision(61_000)(args(job));
      expect(gaveUp.giveUp).toBe(true);
      expect(gaveUp.message).toMatch(
        /^gave up after waiting 61 s for working space \(the limit is 60 s\): cannot tell whether/,
      );
    });

    it('reads the real file system by default', async () => {
      const provision = createProvisionStep({ settings: { ...settings, maxUsedFraction: 1 } });
      expect(await provision(args(jobRecordOf({})))).toEqual({ hasSpace: true });
    });
  });
});
