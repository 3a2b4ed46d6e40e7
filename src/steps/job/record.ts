import type { MerrittJobSteps } from '../contracts.js';
import type { QueueContext } from '../../queue/tree/context.js';
import type { JobRecord } from '../../queue/jobs/load.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { inventoryTarget } from '../services/handoff/handoff.js';
import type { Inventory } from '../services/inventory/port.js';
import { OutputError } from '../output-errors.js';
import { withObjectLock } from '../services/output-lock.js';
import { jobWorkDir, readStoredVersion, type StoredVersion } from '../workdir/workdir.js';
import type { Storage } from '../services/storage/port.js';

/** What the recording step is built from. */
export interface RecordDeps {
  settings: Pick<IngestSettings, 'workRoot' | 'inventoryLockWaitMs'>;
  inventory: Inventory;
  storage: Pick<Storage, 'latest'>;
  queue: QueueContext;
}

/**
 * The version to record: the one storing left in the working directory, else (a job another
 * tool stored) the latest version the storage holds of the ark.
 */
async function versionToRecord(deps: RecordDeps, job: JobRecord, ark: string): Promise<StoredVersion> {
  const workDir = jobWorkDir(deps.settings, job);
  const stored = await readStoredVersion(workDir).catch(() => undefined);
  if (stored?.ark === ark) return stored;
  const latest = await deps.storage.latest?.(ark);
  if (latest) return { ark, ...latest };
  throw new OutputError(
    'WORKDIR_INVALID',
    `job ${job.jobId}: storage holds no version of ${ark} (named by /jobs/${job.jobId}/inventory); requeue from storing`,
  );
}

/**
 * The recording step (seed 003 "Recording → Notify"): the embedded inventory takes the job the
 * way Merritt's inventory service does (`ProcessJob`, merritt-protocols.md §2): it reads
 * `/jobs/JID/inventory`, takes the ark from its manifest URL, and records the stored version
 * under `/locks/inventory/<ark>`, so the depositor is only told once the object can be found.
 * Idempotent: inventory records a version and a local id once however often this runs.
 */
export function createRecordStep(deps: RecordDeps): MerrittJobSteps['record'] {
  return async ({ job, signal, log }): Promise<void> => {
    const { ark } = inventoryTarget(job.jobId, job.inventory);
    const stored = await versionToRecord(deps, job, ark);
    const primary = job.identifiers?.primary_id;
    if (primary && primary !== stored.ark) {
      throw new OutputError(
        'IDENTIFIER_CONFLICT',
        `job ${job.jobId}: identifiers name ${primary} but /jobs/${job.jobId}/inventory names ${stored.ark}; requeue from processing`,
      );
    }
    const localIds = job.identifiers?.local_id ?? [];
    await withObjectLock(
      deps.queue,
      'inventory',
      stored.ark,
      { signal, log, limitMs: deps.settings.inventoryLockWaitMs },
      async () => {
        for (const localId of localIds.length > 0 ? localIds : [undefined]) {
          await deps.inventory.record({ ...stored, ...(localId ? { localId } : {}), signal });
        }
      },
    );
    log.info({ ark: stored.ark, version: stored.version }, 'recorded');
  };
}
