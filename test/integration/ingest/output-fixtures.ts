import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BatchRecord } from '../../../src/queue/batches/load.js';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { workDirOf, type DigestAlgorithm, type DownloadRecord } from '../../../src/steps/ingest-contracts.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';

/** Test fixtures of the output side: working directories as the download step leaves them, jobs, settings. */

export const sha = (data: string | Buffer, algorithm: DigestAlgorithm = 'sha256'): string =>
  createHash(algorithm).update(data).digest('hex');

/** Writes `producer/<name>` files and `download.json`, as the download step would. */
export async function prepareWorkDir(
  workDir: string,
  files: Record<string, string | Buffer>,
  object: Partial<DownloadRecord['object']> = {},
  algorithm: DigestAlgorithm = 'sha256',
): Promise<DownloadRecord> {
  const record: DownloadRecord = {
    files: [],
    object: { erc: { who: 'Doe, Jane', what: 'A test object', when: '2024' }, ...object },
  };
  for (const [name, data] of Object.entries(files)) {
    const path = `producer/${name}`;
    await mkdir(dirname(join(workDir, path)), { recursive: true });
    await writeFile(join(workDir, path), data);
    record.files.push({
      path,
      size: Buffer.byteLength(data),
      digest: { algorithm, value: sha(data, algorithm) },
      sourceUrl: `https://example.org/${name}`,
    });
  }
  await writeFile(join(workDir, 'download.json'), JSON.stringify(record));
  return record;
}

/** A job record in `processing` as the engine hands it to a step. */
export function jobRecord(jobId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    jobId,
    batchId: 'bid0000000001',
    status: 'processing',
    lastSuccessfulStatus: 'downloading',
    retryCount: 0,
    message: null,
    lastModified: '2026-01-01 00:00:00 +0000',
    statusVersion: 4,
    priority: 5,
    spaceNeeded: 0,
    configuration: {
      profile_name: 'demo_profile',
      submitter: 'jdoe',
      payload_url: 'https://example.org/object.checkm',
      payload_type: 'object_manifest',
    },
    identifiers: undefined,
    metadata: undefined,
    store: undefined,
    inventory: undefined,
    ...overrides,
  };
}

/** Settings of the output side rooted in `root` (local services everywhere). */
export function outputSettings(root: string): IngestSettings {
  return {
    deployment: 'standalone',
    fetch: {
      roots: [],
      timeoutMs: 1000,
      retries: 0,
      retryBaseMs: 1,
      maxManifestBytes: 1e6,
      maxFileBytes: 1e9,
      concurrency: 2,
    },
    containers: { maxEntries: 10, maxTotalBytes: 1e6, maxEntryBytes: 1e6, maxRatio: 100 },
    workRoot: join(root, 'work'),
    // Tests must not depend on how full the host's disk is (a CI machine's may be over 70 %);
    // the provisioning rule itself is tested with explicit fractions.
    maxUsedFraction: 0.99,
    spaceWaitLimitMs: 86_400_000,
    largeJobBytes: 1e9,
    largeJobPriority: 10,
    profilesDir: join(root, 'profiles'),
    dataDir: join(root, 'data'),
    minter: { kind: 'local' },
    storage: { kind: 'local' },
    inventory: { kind: 'local' },
  };
}

export const workDirFor = (settings: IngestSettings, job: JobRecord): string =>
  workDirOf(settings.workRoot, job.batchId, job.jobId);

/** A batch record in `reporting`, as the engine hands it to the report step. */
export function batchRecord(overrides: Partial<BatchRecord> = {}): BatchRecord {
  return {
    batchId: 'bid0000000001',
    status: 'reporting',
    message: null,
    lastModified: '2026-01-01 00:00:00 +0000',
    statusVersion: 3,
    jobCount: 3,
    completedJobs: 0,
    failedJobs: 0,
    expansionFailed: false,
    submission: {
      profile_name: 'demo_profile',
      submitter: 'jdoe',
      payload_url: 'https://example.org/batch.checkm',
      type: 'batch-manifest',
      batchID: 'bu-123',
    },
    hasStates: true,
    expansion: 'done',
    ...overrides,
  };
}
