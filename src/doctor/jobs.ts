import type { JobLifecycle } from '../../machines/index.js';
import { decodeObject, isOrphanJob, textOf, type RefIndex } from '../queue/scan/ref-index.js';
import { isUnclampedAsWritten, unclampedRefNote } from './job-notes.js';
import {
  minutes,
  olderThanGrace,
  problem,
  type CheckSettings,
  type DoctorNote,
  type DoctorProblem,
} from './problems.js';
import type { JobScan } from '../queue/scan/snapshot.js';
import { batchPath, batchRef, clampPriority, jobChild, jobPath, jobRef } from '../queue/tree/paths.js';

/** The batches a job may belong to: the scan's batches by id. */
export interface KnownBatches {
  has(bid: string): boolean;
}

/** What the checks of one job found: its problems, and what is worth telling without failing. */
export interface JobFindings {
  problems: DoctorProblem[];
  notes: DoctorNote[];
}

/**
 * Checks one job's own nodes and its two refs (DESIGN.md §2, invariants 1, 2 and 7). Needs only
 * the job, the batch ids and the ref index, so doctor runs it on each window of jobs as read.
 */
export function checkJob(
  job: JobScan,
  batches: KnownBatches,
  index: RefIndex,
  settings: CheckSettings,
): JobFindings {
  const notes: DoctorNote[] = [];
  if (!job.status) return { problems: missingStatus(job, index, settings), notes };
  const out: DoctorProblem[] = [];
  const state = stateOf(job, out, settings.lifecycle);
  const priority = priorityOf(job, out);
  const bid = batchOf(job, batches, index, out);
  checkConfiguration(job, out);
  if (state && !settings.lifecycle.isFinal(state)) checkOptionalNodes(job, out);
  // Where refs belong follows from the status; with no usable status there is nothing to compare.
  if (state) {
    const refProblems = [
      stateRefProblem(job.jid, state, priority, index, settings.lifecycle, notes),
      bid ? batchRefProblem(job.jid, state, bid, index, settings.lifecycle) : undefined,
    ];
    out.push(...refProblems.filter((p) => p !== undefined));
  }
  return { problems: out, notes };
}

function missingStatus(job: JobScan, index: RefIndex, settings: CheckSettings): DoctorProblem[] {
  const { jid } = job;
  if (isOrphanJob(job, index)) {
    // Younger ones may be a creation in progress: the id node comes first, its data a moment later.
    if (!olderThanGrace(job.ctime, settings)) return [];
    const what =
      job.children.size === 0
        ? 'an empty id node'
        : `an id node with ${[...job.children].join(', ')} but no status`;
    return [
      problem(
        'ORPHAN_ID_NODE',
        jid,
        jobPath(jid),
        `${jobPath(jid)} is ${what} and no refs, older than ${minutes(settings.orphanGraceMs)}: left by a crashed creation; \`mrtq cleanup\` removes it`,
      ),
    ];
  }
  const refs = [...(index.stateRefs.get(jid) ?? []), ...(index.batchRefs.get(jid) ?? [])].map(
    (ref) => ref.path,
  );
  return [
    problem(
      'JOB_STATUS_MISSING',
      jid,
      jobChild(jid, 'status'),
      `job ${jid} has refs (${refs.join(', ')}) but no ${jobChild(jid, 'status')}; expected JSON {"status","last_modified",...}: restore it, or delete the job and its refs`,
    ),
  ];
}

function stateOf(job: JobScan, out: DoctorProblem[], lifecycle: JobLifecycle): string | undefined {
  const path = jobChild(job.jid, 'status');
  const decoded = decodeObject(path, job.status!);
  if (!decoded.ok) {
    out.push(
      problem(
        'JOB_STATUS_INVALID',
        job.jid,
        path,
        `${decoded.message}; expected {"status":"Pending",...}: rewrite it with a valid status`,
      ),
    );
    return undefined;
  }
  const { status, last_successful_status: last } = decoded.value;
  const state = typeof status === 'string' ? lifecycle.parse(status) : undefined;
  const expected = lifecycle.states.map((s) => lifecycle.wireName(s)).join(', ');
  if (!state) {
    out.push(
      problem(
        'JOB_STATUS_UNKNOWN',
        job.jid,
        path,
        `${path} has status ${JSON.stringify(status)}, which is no state of this lifecycle (expected one of ${expected}), so no consumer takes the job: \`mrtq requeue ${job.jid} --to STATE\` moves it to a state the lifecycle knows, \`mrtq delete ${job.jid}\` deletes it`,
      ),
    );
  } else if (typeof last === 'string' && last !== '' && !lifecycle.parse(last)) {
    out.push(
      problem(
        'JOB_STATUS_UNKNOWN',
        job.jid,
        path,
        `${path} has last_successful_status "${last}", which is no job state; expected null or one of ${expected}`,
      ),
    );
  }
  return state;
}

/** The priority the job's refs must carry; mrt-zk reads a missing priority as 5. */
function priorityOf(job: JobScan, out: DoctorProblem[]): number | undefined {
  const text = textOf(job.priority);
  if (text === '') return 5;
  const value = Number(text);
  if (Number.isSafeInteger(value)) return value;
  const path = jobChild(job.jid, 'priority');
  out.push(
    problem(
      'JOB_PRIORITY_INVALID',
      job.jid,
      path,
      `${path} is "${text}"; expected an integer (lower runs first, default 5)`,
    ),
  );
  return undefined;
}

function batchOf(
  job: JobScan,
  batches: KnownBatches,
  index: RefIndex,
  out: DoctorProblem[],
): string | undefined {
  const bid = textOf(job.bid);
  const path = jobChild(job.jid, 'bid');
  if (bid === '') {
    // The batch whose folders hold the job: the one it belongs to, and the one that waits for it.
    const holders = [
      ...new Set((index.batchRefs.get(job.jid) ?? []).map((ref) => `${ref.bid} (${ref.folder})`)),
    ];
    const held =
      holders.length > 0
        ? `; batch ${holders.join(', batch ')} holds it and cannot finish without it: write that id into ${path}, or let the engine fail the job after MRTQ_INCOMPLETE_JOB_FAIL_MS (it writes the id back)`
        : '';
    out.push(
      problem(
        'JOB_BID_MISSING',
        job.jid,
        path,
        `${path} is ${job.bid ? 'empty' : 'missing'}; expected the id of the job's batch (bidN)${held}`,
      ),
    );
    return undefined;
  }
  if (!batches.has(bid)) {
    out.push(
      problem(
        'JOB_BATCH_MISSING',
        job.jid,
        path,
        `job ${job.jid} belongs to batch ${bid}, but ${batchPath(bid)} does not exist; delete the job or restore its batch`,
      ),
    );
    return undefined;
  }
  return bid;
}

function checkConfiguration(job: JobScan, out: DoctorProblem[]): void {
  const path = jobChild(job.jid, 'configuration');
  if (!job.configuration) {
    out.push(
      problem(
        'JOB_CONFIGURATION_MISSING',
        job.jid,
        path,
        `${path} is missing; expected JSON {"profile_name","submitter","payload_url",...}`,
      ),
    );
    return;
  }
  const decoded = decodeObject(path, job.configuration);
  if (!decoded.ok)
    out.push(
      problem('JOB_CONFIGURATION_INVALID', job.jid, path, `${decoded.message}; expected a JSON object`),
    );
}

/** What each optional node holds, for the message about one that is missing. */
const OPTIONAL_NODES = {
  priority: 'the priority as text (lower runs first, default 5)',
  space_needed: 'the estimated bytes as text (0 until estimated)',
} as const;

/**
 * A job that can still move without `priority` or `space_needed` (another tool wrote it so):
 * readers take the defaults and this engine creates the node at the job's next transition, but
 * Merritt's own services set them without creating them, and fail.
 */
function checkOptionalNodes(job: JobScan, out: DoctorProblem[]): void {
  for (const [key, holds] of Object.entries(OPTIONAL_NODES) as [keyof typeof OPTIONAL_NODES, string][]) {
    if (job.children.has(key)) continue;
    const path = jobChild(job.jid, key);
    out.push(
      problem(
        'JOB_NODE_MISSING',
        job.jid,
        path,
        `${path} is missing; expected ${holds}. This engine creates it at the job's next transition; Merritt's own services fail setting it: create it (e.g. with the default)`,
      ),
    );
  }
}

/** The one problem of a job's `/jobs/states` ref, if any; a ref as Merritt names it goes to `notes`. */
function stateRefProblem(
  jid: string,
  state: string,
  priority: number | undefined,
  index: RefIndex,
  lifecycle: JobLifecycle,
  notes: DoctorNote[],
) {
  const refs = index.stateRefs.get(jid) ?? [];
  const expected = jobRef(state, priority ?? 5, jid);
  const status = lifecycle.wireName(state);
  if (refs.length === 0) {
    const message = `job ${jid} is ${status} but has no ref under /jobs/states, so no consumer sees it`;
    return problem('JOB_NO_STATE_REF', jid, expected, `${message}; expected ${expected}`);
  }
  const paths = refs.map((ref) => ref.path);
  if (refs.length > 1) {
    const message = `job ${jid} has ${refs.length} refs (${paths.join(', ')}); expected only ${expected}`;
    return problem('JOB_STATE_REF_DUPLICATE', jid, jobPath(jid), `${message}: delete the others`);
  }
  const ref = refs[0]!;
  if (ref.folder !== lifecycle.folderOf(state)) {
    const message = `job ${jid} is ${status} but its ref is ${ref.path}; expected ${expected}`;
    return problem('JOB_STATE_REF_WRONG_FOLDER', jid, ref.path, message);
  }
  if (priority !== undefined && ref.priority !== clampPriority(priority)) {
    if (isUnclampedAsWritten(ref, priority)) {
      notes.push(unclampedRefNote(state, ref, priority));
      return undefined;
    }
    const message = `job ${jid} has priority ${priority} but its ref is ${ref.path}; expected ${expected}`;
    return problem('JOB_STATE_REF_WRONG_PRIORITY', jid, ref.path, message);
  }
  return undefined;
}

/** The one problem of a job's ref in its batch's folders, if any. */
function batchRefProblem(jid: string, state: string, bid: string, index: RefIndex, lifecycle: JobLifecycle) {
  const refs = (index.batchRefs.get(jid) ?? []).filter((ref) => ref.bid === bid);
  const expected = batchRef(bid, lifecycle.batchFolderOf(state), jid);
  const status = lifecycle.wireName(state);
  if (refs.length === 0) {
    const message = `job ${jid} (${status}) has no ref in its batch ${bid}, so the batch cannot tell when it is done`;
    return problem('JOB_NO_BATCH_REF', jid, expected, `${message}; expected ${expected}`);
  }
  const paths = refs.map((ref) => ref.path);
  if (refs.length > 1) {
    const message = `job ${jid} has ${refs.length} refs in batch ${bid} (${paths.join(', ')})`;
    return problem('JOB_BATCH_REF_DUPLICATE', jid, jobPath(jid), `${message}; expected only ${expected}`);
  }
  if (paths[0] !== expected) {
    const message = `job ${jid} is ${status} but its batch ref is ${paths[0]}; expected ${expected}`;
    return problem('JOB_BATCH_REF_WRONG_FOLDER', jid, paths[0]!, message);
  }
  return undefined;
}
