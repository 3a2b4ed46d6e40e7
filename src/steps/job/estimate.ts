import type { Logger } from 'pino';
import type { MerrittJobSteps } from '../contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import type { Fetcher } from '../services/fetch/fetch.js';
import { mapLimit } from '../services/fetch/limit.js';
import { objectOf, type JobObject, type ObjectFile } from './object-files.js';

/** What the estimate step is built from (composition root). */
export interface EstimateDeps {
  fetcher: Fetcher;
  settings: IngestSettings;
}

/** A file's size: the manifest's when given, else what a HEAD announces, else 0. */
async function sizeOf(fetcher: Fetcher, file: ObjectFile, signal: AbortSignal, log: Logger): Promise<number> {
  if (file.size !== undefined) return file.size;
  try {
    return (await fetcher.head(file.url, signal)) ?? 0;
  } catch (err) {
    signal.throwIfAborted();
    log.debug({ err, url: file.url }, 'estimate: no size for a file, counted as 0');
    return 0;
  }
}

/**
 * The estimating step (seed 003): HEAD every file of the object (at most `fetch.concurrency` at
 * once), take sizes the manifest gives, and sum them into space needed; a job above
 * `largeJobBytes` gets priority `largeJobPriority` (never a more urgent one than it had).
 * Estimating never fails: an unreadable manifest or an unknown size counts as 0. Only an abort
 * ends it with an error.
 */
export function createEstimateStep(deps: EstimateDeps): MerrittJobSteps['estimate'] {
  const { settings } = deps;
  return async ({ job, signal, log }) => {
    let object: JobObject;
    try {
      object = await objectOf(job, deps.fetcher, signal);
    } catch (err) {
      signal.throwIfAborted();
      log.warn({ err, jobId: job.jobId }, 'estimate: the object cannot be read, space needed counted as 0');
      return { spaceNeeded: 0 };
    }
    const sizes = await mapLimit(object.files, settings.fetch.concurrency, signal, (file, _i, s) =>
      sizeOf(deps.fetcher, file, s, log),
    );
    const bytes = sizes.reduce((sum, size) => sum + size, 0);
    // A container and its unpacked content are both on disk until the container is deleted.
    const spaceNeeded = object.container ? bytes * 2 : bytes;
    const large = spaceNeeded > settings.largeJobBytes && job.priority < settings.largeJobPriority;
    log.info({ jobId: job.jobId, spaceNeeded, files: sizes.length, large }, 'estimated');
    return large ? { spaceNeeded, priority: settings.largeJobPriority } : { spaceNeeded };
  };
}
