import type { JobLifecycle } from '../../machines/index.js';
import { decodeObject } from './doctor-index.js';
import type { DoctorNote } from './doctor-problems.js';
import type { QueueScan } from './doctor-scan.js';
import { readJobConfiguration } from './merritt-ingest-keys.js';
import { leftForIngestReason } from './job-payload.js';
import { jobChild, jobPath } from './paths.js';

/**
 * Jobs the engine leaves for the ingest service that wrote them (src/queue/job-payload.ts): in a
 * state whose step needs the payload, which is on that service's disk. Not a problem; told with
 * the reason, so an operator who finds such a job waiting knows whose it is.
 */
export function jobNotes(scan: QueueScan, lifecycle: JobLifecycle): DoctorNote[] {
  const notes: DoctorNote[] = [];
  for (const { jid, status, configuration } of scan.jobs.values()) {
    if (!status || !configuration) continue;
    const decoded = decodeObject(jobChild(jid, 'status'), status);
    const wire = decoded.ok ? decoded.value.status : undefined;
    const state = typeof wire === 'string' ? lifecycle.parse(wire) : undefined;
    if (state === undefined) continue;
    const read = decodeObject(jobChild(jid, 'configuration'), configuration);
    const reason = read.ok
      ? leftForIngestReason(lifecycle, state, readJobConfiguration(read.value))
      : undefined;
    if (reason !== undefined)
      notes.push({
        code: 'JOB_LEFT_FOR_INGEST',
        item: jid,
        path: jobPath(jid),
        message: `job ${jid} is ${reason}`,
      });
  }
  return notes;
}
