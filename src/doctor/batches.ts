import {
  batchWireNames,
  parseBatchState,
  type BatchState,
  BATCH_FOLDERS,
  type BatchFolder,
} from '../../machines/index.js';
import { decodeObject, isOrphanBatch } from '../queue/scan/ref-index.js';
import { unexpandableReason } from '../queue/batches/expandable.js';
import {
  minutes,
  olderThanGrace,
  problem,
  type CheckSettings,
  type DoctorCode,
  type DoctorNote,
  type DoctorProblem,
} from './problems.js';
import type { BatchScan, QueueScan } from '../queue/scan/snapshot.js';
import { batchChild, batchPath, batchUuidPath } from '../queue/tree/paths.js';

/** Checks every batch's own nodes, its uuid entry, and its status against its folders (DESIGN.md §3). */
export function checkBatches(
  scan: Pick<QueueScan, 'batches' | 'uuids'>,
  settings: CheckSettings,
): DoctorProblem[] {
  const uuids = new Set(scan.uuids.map((entry) => entry.uuid));
  const problems: DoctorProblem[] = [];
  for (const batch of scan.batches.values()) problems.push(...checkBatch(batch, uuids, settings));
  return problems;
}

function checkBatch(batch: BatchScan, uuids: ReadonlySet<string>, settings: CheckSettings): DoctorProblem[] {
  const { bid } = batch;
  if (!batch.status) {
    if (isOrphanBatch(batch)) {
      if (!olderThanGrace(batch.ctime, settings)) return [];
      return [
        problem(
          'ORPHAN_ID_NODE',
          bid,
          batchPath(bid),
          `${batchPath(bid)} has no status and no job refs, older than ${minutes(settings.orphanGraceMs)}: left by a crashed submission; \`mrtq cleanup\` removes it`,
        ),
      ];
    }
    return [
      problem(
        'BATCH_STATUS_MISSING',
        bid,
        batchChild(bid, 'status'),
        `batch ${bid} has jobs but no ${batchChild(bid, 'status')}; expected JSON {"status","last_modified"}: restore it`,
      ),
    ];
  }
  const out: DoctorProblem[] = [];
  const status = statusOf(batch, out);
  checkSubmission(batch, uuids, out);
  if (status) out.push(...checkFolders(batch, status.state, status.message));
  return out;
}

function statusOf(
  batch: BatchScan,
  out: DoctorProblem[],
): { state: BatchState; message: string } | undefined {
  const path = batchChild(batch.bid, 'status');
  const decoded = decodeObject(path, batch.status!);
  if (!decoded.ok) {
    out.push(
      problem(
        'BATCH_STATUS_INVALID',
        batch.bid,
        path,
        `${decoded.message}; expected {"status":"Pending",...}: rewrite it with a valid status`,
      ),
    );
    return undefined;
  }
  const { status, message } = decoded.value;
  const state = typeof status === 'string' ? parseBatchState(status) : undefined;
  if (!state) {
    const expected = Object.values(batchWireNames).join(', ');
    out.push(
      problem(
        'BATCH_STATUS_UNKNOWN',
        batch.bid,
        path,
        `${path} has status ${JSON.stringify(status)}, which is no batch state; expected one of ${expected}`,
      ),
    );
    return undefined;
  }
  return { state, message: typeof message === 'string' ? message : '' };
}

function checkSubmission(batch: BatchScan, uuids: ReadonlySet<string>, out: DoctorProblem[]): void {
  const path = batchChild(batch.bid, 'submission');
  if (!batch.submission) {
    out.push(
      problem(
        'BATCH_SUBMISSION_MISSING',
        batch.bid,
        path,
        `${path} is missing; expected the depositor's submission as JSON {"profile_name","submitter","payload_url","type",...}`,
      ),
    );
    return;
  }
  const decoded = decodeObject(path, batch.submission);
  if (!decoded.ok) {
    out.push(
      problem('BATCH_SUBMISSION_INVALID', batch.bid, path, `${decoded.message}; expected a JSON object`),
    );
    return;
  }
  const uuid = decoded.value.batchID;
  if (typeof uuid === 'string' && uuid !== '' && !uuids.has(uuid)) {
    // A resubmission of the same uuid would then create a second batch instead of finding this one.
    out.push(
      problem(
        'BATCH_UUID_MISSING',
        batch.bid,
        batchUuidPath(uuid),
        `batch ${batch.bid} has batchID ${uuid} but ${batchUuidPath(uuid)} does not exist; expected it to contain ${batch.bid}`,
      ),
    );
  }
}

const count = (batch: BatchScan, folders: readonly BatchFolder[]): number =>
  folders.reduce((sum, folder) => sum + batch.folders[folder].length, 0);

interface FolderRule {
  code: DoctorCode;
  /** Batch states the rule applies to. */
  states: readonly BatchState[];
  /** Folders that must be empty in those states. */
  folders: readonly BatchFolder[];
  explain(bid: string, status: string, jobs: number): string;
}

/**
 * Contradictions between a batch's status and its folders that no path through the batch
 * lifecycle (DESIGN.md §3) produces, even mid-transition. Windows the engine passes through
 * (processing with an empty batch-processing, a failed batch whose job is being requeued) are
 * not reported.
 */
const FOLDER_RULES: readonly FolderRule[] = [
  {
    // Jobs are created by expansion, which runs only after pending → processing.
    code: 'BATCH_JOBS_BEFORE_ACQUIRE',
    states: ['pending', 'held'],
    folders: BATCH_FOLDERS,
    explain: (bid, status, jobs) =>
      `batch ${bid} is ${status} but has ${jobs} job refs; jobs are created only once a batch is acquired: set its status to Processing, or delete the jobs`,
  },
  {
    // Reporting starts only when batch-processing is empty, and ends completed only without failed jobs.
    code: 'BATCH_COMPLETED_WITH_OPEN_JOBS',
    states: ['completed'],
    folders: ['batch-processing', 'batch-failed'],
    explain: (bid, _status, jobs) =>
      `batch ${bid} is Completed but ${jobs} of its jobs are in batch-processing or batch-failed; a batch completes only when every job has: set it back to Processing so it reports again, or delete those jobs`,
  },
  {
    // Only held batches (no jobs) and failed ones (no running jobs) can be deleted.
    code: 'BATCH_DELETED_WITH_ACTIVE_JOBS',
    states: ['deleted'],
    folders: ['batch-processing'],
    explain: (bid, _status, jobs) =>
      `batch ${bid} is Deleted but ${jobs} of its jobs are still in batch-processing; delete those jobs, their results will never be reported`,
  },
];

function checkFolders(batch: BatchScan, state: BatchState, message: string): DoctorProblem[] {
  const { bid } = batch;
  const status = batchWireNames[state];
  const problems = FOLDER_RULES.filter(
    (rule) => rule.states.includes(state) && count(batch, rule.folders) > 0,
  ).map((rule) =>
    problem(rule.code, bid, batchPath(bid), rule.explain(bid, status, count(batch, rule.folders))),
  );
  // A batch fails when expansion or reporting fails (with a message) or when jobs failed; a
  // failed job that was deleted afterwards still explains it, one being requeued is in flight.
  const unexplained = count(batch, ['batch-processing', 'batch-failed', 'batch-deleted']) === 0;
  if (state === 'failed' && message === '' && unexplained) {
    const jobs = count(batch, BATCH_FOLDERS);
    const text = `batch ${bid} is Failed with no message and no failed, deleted or running job (${jobs} jobs in all): nothing explains the failure; update-report it so it ends Completed`;
    problems.push(problem('BATCH_FAILED_WITHOUT_CAUSE', bid, batchPath(bid), text));
  }
  return problems;
}

/** Checks that every `/batch-uuids/<uuid>` names an existing batch that carries that uuid. */
export function checkUuids(scan: Pick<QueueScan, 'batches' | 'uuids'>): DoctorProblem[] {
  return scan.uuids.flatMap(({ uuid, path, target }) => {
    const batch = target === '' ? undefined : scan.batches.get(target);
    if (!batch) {
      const what = target === '' ? 'is empty' : `names batch ${target}, which does not exist`;
      return [
        problem(
          'BATCH_UUID_DANGLING',
          uuid,
          path,
          `${path} ${what}; a resubmission of ${uuid} would be answered with a batch that is not there: delete the entry`,
        ),
      ];
    }
    const submission = batch.submission
      ? decodeObject(batchChild(batch.bid, 'submission'), batch.submission)
      : undefined;
    const carried = submission?.ok ? submission.value.batchID : undefined;
    if (typeof carried === 'string' && carried !== uuid) {
      return [
        problem(
          'BATCH_UUID_MISMATCH',
          uuid,
          path,
          `${path} names batch ${batch.bid}, whose submission has batchID ${carried}; expected ${uuid}: point the entry at the batch submitted as ${uuid}, or delete it`,
        ),
      ];
    }
    return [];
  });
}

/**
 * Pending batches the engine leaves for Merritt's ingest (src/queue/batches/expandable.ts): not a
 * problem, told with the reason, so an operator who finds a batch pending for long knows whose it is.
 */
export function batchNotes(scan: Pick<QueueScan, 'batches'>): DoctorNote[] {
  const notes: DoctorNote[] = [];
  for (const { bid, status, submission } of scan.batches.values()) {
    if (!status || !submission) continue;
    const decoded = decodeObject(batchChild(bid, 'status'), status);
    const state =
      decoded.ok && typeof decoded.value.status === 'string'
        ? parseBatchState(decoded.value.status)
        : undefined;
    if (state !== 'pending') continue;
    const read = decodeObject(batchChild(bid, 'submission'), submission);
    const reason = read.ok ? unexpandableReason(read.value) : undefined;
    if (reason !== undefined)
      notes.push({
        code: 'BATCH_LEFT_PENDING',
        item: bid,
        path: batchPath(bid),
        message: `batch ${bid} is ${reason}`,
      });
  }
  return notes;
}
