import type { JobSteps, StepWrites } from '../../engine/steps.js';
import type { QueueContext } from '../../queue/context.js';
import type { IngestSettings } from './contracts.js';
import type { Inventory } from './inventory.js';
import { OutputError } from './output-errors.js';
import { withObjectLock } from './output-lock.js';
import { jobWorkDir, readStoredVersion } from './output-workdir.js';

/** What the recording step is built from. */
export interface RecordDeps {
  settings: Pick<IngestSettings, 'workRoot'>;
  inventory: Inventory;
  queue: QueueContext;
}

/**
 * The recording step (seed 003 "Recording → Notify"): records the version processing stored in
 * the inventory, under `/locks/inventory/<ark>`, so the depositor is only told once the object
 * can be found. Returns the inventory node (`manifest_url`, `mode`: `add` for a first version,
 * `update` for a later one), written by the engine with the transition. Idempotent: inventory
 * records a version and a local id once however often this runs.
 */
export function createRecordStep(deps: RecordDeps): JobSteps['record'] {
  return async ({ job, signal, log }): Promise<StepWrites> => {
    const workDir = jobWorkDir(deps.settings, job);
    const stored = await readStoredVersion(workDir);
    if (!stored) {
      throw new OutputError(
        'WORKDIR_INVALID',
        `job ${job.jobId}: ${workDir} holds no stored version (system/storage.json); requeue from processing`,
      );
    }
    const primary = job.identifiers?.primary_id;
    if (primary && primary !== stored.ark) {
      throw new OutputError(
        'IDENTIFIER_CONFLICT',
        `job ${job.jobId}: identifiers name ${primary} but processing stored ${stored.ark}; requeue from processing`,
      );
    }
    const localIds = job.identifiers?.local_id ?? [];
    await withObjectLock(deps.queue, 'inventory', stored.ark, log, async () => {
      for (const localId of localIds.length > 0 ? localIds : [undefined]) {
        await deps.inventory.record({ ...stored, ...(localId ? { localId } : {}), signal });
      }
    });
    log.info({ ark: stored.ark, version: stored.version }, 'recorded');
    return { inventory: { manifest_url: stored.manifestUrl, mode: stored.version === 1 ? 'add' : 'update' } };
  };
}
