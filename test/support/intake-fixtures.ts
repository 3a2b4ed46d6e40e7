import { join } from 'node:path';
import type { JobRecord } from '../../src/queue/jobs/load.js';
import type { JobConfiguration } from '../../src/queue/tree/records.js';
import type { IngestSettings } from '../../src/config/ingest-settings.js';

/** Ingest settings for tests under `dir` (work root, profiles, data), small and fast, with overrides. */
export function testIngestSettings(dir: string, over: Partial<IngestSettings> = {}): IngestSettings {
  return {
    deployment: 'standalone',
    fetch: {
      roots: [join(dir, 'deposits')],
      timeoutMs: 2000,
      retries: 1,
      retryBaseMs: 5,
      maxManifestBytes: 1024 * 1024,
      maxFileBytes: 64 * 1024 * 1024,
      concurrency: 3,
    },
    containers: {
      maxEntries: 100,
      maxTotalBytes: 32 * 1024 * 1024,
      maxEntryBytes: 16 * 1024 * 1024,
      maxRatio: 50,
    },
    workRoot: join(dir, 'work'),
    // Tests must not depend on how full the host's disk is (a CI machine's may be over 70 %);
    // the provisioning rule itself is tested with explicit fractions.
    maxUsedFraction: 0.99,
    spaceWaitLimitMs: 86_400_000,
    largeJobBytes: 1024 * 1024,
    largeJobPriority: 20,
    profilesDir: join(dir, 'profiles'),
    dataDir: join(dir, 'data'),
    minter: { kind: 'local' },
    storage: { kind: 'local' },
    inventory: { kind: 'local' },
    ...over,
  };
}

let jobs = 0;

/** A job record as the steps receive it (no ZooKeeper involved), each with a new job id. */
export function jobRecordOf(
  configuration: Partial<JobConfiguration>,
  over: Partial<JobRecord> = {},
): JobRecord {
  jobs += 1;
  return {
    jobId: `jid${String(jobs).padStart(10, '0')}`,
    batchId: 'bid0000000001',
    status: 'downloading',
    lastSuccessfulStatus: 'provisioning',
    retryCount: 0,
    message: null,
    priority: 5,
    spaceNeeded: 0,
    lastModified: '',
    statusVersion: 0,
    configuration: {
      profile_name: 'p',
      submitter: 's',
      payload_url: '',
      payload_type: 'file',
      ...configuration,
    },
    identifiers: undefined,
    metadata: undefined,
    store: undefined,
    inventory: undefined,
    ...over,
  };
}
