import type { JobLifecycle } from '../../machines/index.js';
import { decodeObject, type StateRef } from '../queue/scan/ref-index.js';
import type { DoctorNote } from './problems.js';
import type { JobScan } from '../queue/scan/snapshot.js';
import { readJobConfiguration } from '../queue/tree/merritt-ingest-keys.js';
import { leftForIngestReason } from '../queue/jobs/payload.js';
import { clampPriority, jobChild, jobPath, jobRef } from '../queue/tree/paths.js';

/**
 * A job the engine leaves for the ingest service that wrote it (src/queue/jobs/payload.ts): in a
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

/**
 * Whether a job's ref is named with its priority node's value as written, outside 00-99: what
 * Merritt's mrt-zk writes (`%02d-jid…` of an unclamped profile Priority or estimate penalty,
 * merritt-protocols.md §8). Any other disagreement of prefix and node is a problem.
 */
export function isUnclampedAsWritten(ref: StateRef, priority: number): boolean {
  return ref.priority === priority && priority !== clampPriority(priority);
}

/**
 * A ref Merritt's mrt-zk named with a priority outside 00-99 (see {@link isUnclampedAsWritten}).
 * Not a problem: the engine takes it in the order of its clamped priority and writes ref and
 * priority node clamped at the job's next transition; until then both stay as Merritt wrote them
 * (doctor, like every reader, writes nothing). Told with what Merritt's own consumers make of it,
 * since they take the job id as the ref name less its first three characters.
 */
export function unclampedRefNote(state: string, ref: StateRef, priority: number): DoctorNote {
  const { jid, path } = ref;
  const next = jobRef(state, clampPriority(priority), jid);
  const merrittReads = path.slice(path.lastIndexOf('/') + 1).slice(3);
  const merritt =
    merrittReads === jid
      ? "Merritt's consumers take it as well"
      : `Merritt's consumers read its job id as "${merrittReads}" and never take it`;
  return {
    code: 'JOB_STATE_REF_UNCLAMPED',
    item: jid,
    path,
    message: `job ${jid} has priority ${priority} and its ref is ${path}, as Merritt's mrt-zk names a priority outside 00-99; this engine runs it in the order of ${next} and writes ref and priority clamped (${next}) at the job's next transition, not before; ${merritt}. Nothing to repair`,
  };
}
