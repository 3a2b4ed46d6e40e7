import { batchNotes, checkBatches, checkUuids } from './batches.js';
import { indexRefs, textOf } from '../queue/scan/ref-index.js';
import { jobNote } from './job-notes.js';
import { checkJob } from './jobs.js';
import { checkLocks, jobLock, otherLocks } from './locks.js';
import type { CheckSettings, DoctorNote, DoctorProblem } from './problems.js';
import { checkRefs } from './refs.js';
import type { JobScan, QueueSkeleton } from '../queue/scan/snapshot.js';

/** What one pass of the checks found. */
export interface CheckResult {
  problems: DoctorProblem[];
  notes: DoctorNote[];
  checked: { jobs: number; batches: number; refs: number };
}

/** What the checks found of one job: all that is kept of it. */
export interface JobVerdict {
  jid: string;
  /** The batch its `bid` names ('' when none). */
  owner: string;
  problems: DoctorProblem[];
  lockProblems: DoctorProblem[];
  notes: DoctorNote[];
}

/** The checks of a queue, fed its jobs a window at a time. */
export interface JobCheckStream {
  /** Checks one job against the skeleton; keeps nothing (record the verdict). */
  check(job: JobScan): JobVerdict;
  /** Keeps the verdicts of jobs, in the jobs' order: their findings, and each job's id and batch. */
  record(verdicts: Iterable<JobVerdict>): void;
  /** Checks and records these jobs. */
  add(jobs: Iterable<JobScan>): void;
  /** Runs the checks that need every job (refs naming no job, or a job of another batch). */
  finish(): CheckResult;
}

/**
 * Checks a queue whose jobs come a window at a time, so that memory is bounded by the skeleton
 * and its ref index (a few hundred bytes a job), never by the jobs' data. Pure: fed the jobs of a
 * scan in any windows, it finds exactly what the checks find over the whole scan, in the same
 * order (each job's own problems, then the refs', the batches', the uuids' and the locks').
 */
export function createJobCheckStream(skeleton: QueueSkeleton, settings: CheckSettings): JobCheckStream {
  const index = indexRefs(skeleton);
  /** jid → the batch its `bid` names ('' when none). */
  const owners = new Map<string, string>();
  const jobProblems: DoctorProblem[] = [];
  const jobLockProblems: DoctorProblem[] = [];
  const jobNotes: DoctorNote[] = [];
  // The batch's own id string: a million jobs of a few batches hold a few strings, not a million.
  const intern = (bid: string): string => skeleton.batches.get(bid)?.bid ?? bid;
  const check = (job: JobScan): JobVerdict => {
    const lock = jobLock(job);
    const { problems, notes } = checkJob(job, skeleton.batches, index, settings);
    const left = jobNote(job, settings.lifecycle);
    return {
      jid: job.jid,
      owner: intern(textOf(job.bid)),
      problems,
      lockProblems: lock ? checkLocks([lock], settings) : [],
      notes: left ? [left, ...notes] : notes,
    };
  };
  const record = (verdicts: Iterable<JobVerdict>): void => {
    for (const verdict of verdicts) {
      owners.set(verdict.jid, verdict.owner);
      jobProblems.push(...verdict.problems);
      jobLockProblems.push(...verdict.lockProblems);
      jobNotes.push(...verdict.notes);
    }
  };
  return {
    check,
    record,
    add(jobs) {
      for (const job of jobs) record([check(job)]);
    },
    finish() {
      const problems = [
        ...jobProblems,
        ...checkRefs(skeleton, index, owners, settings.lifecycle),
        ...checkBatches(skeleton, settings),
        ...checkUuids(skeleton),
        ...jobLockProblems,
        ...checkLocks(otherLocks(skeleton), settings),
      ];
      const checked = { jobs: owners.size, batches: skeleton.batches.size, refs: index.count };
      return { problems, notes: [...batchNotes(skeleton), ...jobNotes], checked };
    },
  };
}
