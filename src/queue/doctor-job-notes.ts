import type { JobLifecycle } from '../../machines/index.js';
import { decodeObject } from './doctor-index.js';
import type { DoctorNote } from './doctor-problems.js';
import type { JobScan } from './doctor-scan.js';
import { readJobConfiguration } from './merritt-ingest-keys.js';
import { leftForIngestReason } from './job-payload.js';
import { jobChild, jobPath } from './paths.js';

/**
 * A job the engine leaves for the ingest service that wrote it (src/queue/job-payload.ts): in a
 * state whose step needs the payload, which is on that service's disk. Not a problem; told with
 * the reason, so an operator who finds such a job waiting knows whose it is.
 */
export function jobNote(job: JobScan, lifecycle: JobLifecycle): DoctorNote | undefined {
  const { jid, status, configuration } = job;
  if (!status || !configuration) return undefined;
  const decoded = decodeObject(jobChild(jid, 'status'), status);
  const wire = decoded.ok ? decoded.value.status : undefined;
  const state = typeof wire === 'string' ? lifecycle.parse(wire) : undefined;
  if (state === undefined) return undefined;
  const read = decodeObject(jobChild(jid, 'configuration'), configuration);
  const reason = read.ok
    ? leftForIngestReason(lifecycle, state, readJobConfiguration(read.value))
    : undefined;
  if (reason === undefined) return undefined;
  return { code: 'JOB_LEFT_FOR_INGEST', item: jid, path: jobPath(jid), message: `job ${jid} is ${reason}` };
}
