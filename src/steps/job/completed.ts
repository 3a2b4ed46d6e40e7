import { rmdir } from '../fs/calls.js';
import { dirname } from 'node:path';
import type { JobStep } from '../contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { isBelow } from '../workdir/files.js';
import { jobWorkDir } from '../workdir/workdir.js';
import { removeTree } from '../workdir/remove-tree.js';

/** What the completed step is built from. */
export interface CompletedDeps {
  settings: Pick<IngestSettings, 'workRoot'>;
}

/**
 * After a job completed (seed 003 "cleanup"): its working directory goes (producer and system);
 * its ZooKeeper nodes stay for reporting. Running it again finds nothing and does nothing. The
 * batch's directory goes too once its last job's is gone. Only directories inside `workRoot` are
 * ever removed (jobWorkDir refuses any other).
 */
export function createCompletedStep(deps: CompletedDeps): JobStep {
  return async ({ job, log }): Promise<void> => {
    const dir = jobWorkDir(deps.settings, job);
    await removeTree(dir);
    const batchDir = dirname(dir);
    if (!isBelow(deps.settings.workRoot, batchDir)) return;
    try {
      await rmdir(batchDir);
    } catch (err) {
      // Other jobs of the batch still have their directories, or another process removed it.
      if (!['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
    log.debug({ workDir: dir }, 'working directory removed');
  };
}
