import { merrittJobLifecycle, type JobLifecycle } from '../../machines/index.js';
import type { RefIndex } from '../queue/scan/ref-index.js';
import { problem, type DoctorProblem } from './problems.js';
import type { QueueScan } from '../queue/scan/snapshot.js';
import { JOB_STATES, jobPath } from '../queue/tree/paths.js';

/**
 * Every job read, by id, with the batch its `bid` names ('' when none): all the checks of refs
 * need to know of the jobs, so doctor keeps this and drops the rest of each job once checked.
 */
export type JobOwners = ReadonlyMap<string, string>;

/** Checks that every ref is well named, in a known folder, and names an existing job of its batch. */
export function checkRefs(
  scan: Pick<QueueScan, 'stateFolders'>,
  index: RefIndex,
  owners: JobOwners,
  lifecycle: JobLifecycle,
): DoctorProblem[] {
  return [
    ...checkStateFolders(scan, lifecycle),
    ...checkRefNames(index),
    ...checkStateTargets(owners, index),
    ...checkBatchTargets(owners, index),
  ];
}

/** Folders Merritt's own services read and write: never advised away, whatever this lifecycle serves. */
const MERRITT_FOLDERS: ReadonlySet<string> = new Set(
  merrittJobLifecycle.states.map((state) => merrittJobLifecycle.folderOf(state)),
);

function checkStateFolders(scan: Pick<QueueScan, 'stateFolders'>, lifecycle: JobLifecycle): DoctorProblem[] {
  const known = new Set(lifecycle.states.map((state) => lifecycle.folderOf(state)));
  return [...scan.stateFolders]
    .filter(([folder]) => !known.has(folder))
    .map(([folder, names]) => {
      const path = `${JOB_STATES}/${folder}`;
      const unseen = `${path} (${names.length} refs) names no state of this lifecycle, so its consumers never look there`;
      // The jobs in it are reported one by one (JOB_STATUS_UNKNOWN or a misplaced ref): moving
      // them is the remedy. A folder of Merritt's own stays: its services use it.
      const remedy = MERRITT_FOLDERS.has(folder)
        ? `it is a folder of Merritt's own lifecycle, which Merritt's services use: run an engine whose lifecycle has it, or move its jobs (\`mrtq requeue JID --to STATE\`); keep the folder`
        : `expected one of ${[...known].join(', ')}: move each of its jobs to a state this lifecycle knows (\`mrtq requeue JID --to STATE\`, or \`mrtq delete JID\`); the folder can go once it is empty`;
      return problem('STATE_FOLDER_UNKNOWN', path, path, `${unseen}; ${remedy}`);
    });
}

function checkRefNames(index: RefIndex): DoctorProblem[] {
  return [
    ...index.badStateNames.map(({ path, name }) =>
      problem(
        'REF_NAME_INVALID',
        path,
        path,
        `${path}: "${name}" is not a job ref; expected PP-jidN (two-digit priority, job id), e.g. 05-jid0000000001`,
      ),
    ),
    ...index.badBatchNames.map(({ path, jid }) =>
      problem(
        'REF_NAME_INVALID',
        path,
        path,
        `${path}: "${jid}" is not a job id; a batch folder holds only jidN refs`,
      ),
    ),
  ];
}

function checkStateTargets(owners: JobOwners, index: RefIndex): DoctorProblem[] {
  const out: DoctorProblem[] = [];
  for (const [jid, refs] of index.stateRefs) {
    if (owners.has(jid)) continue;
    for (const ref of refs) {
      out.push(
        problem(
          'JOB_STATE_REF_DANGLING',
          jid,
          ref.path,
          `${ref.path} points at job ${jid}, but ${jobPath(jid)} does not exist; a consumer would take a job that is not there: delete the ref (\`mrtq cleanup\` removes old ones)`,
        ),
      );
    }
  }
  return out;
}

function checkBatchTargets(owners: JobOwners, index: RefIndex): DoctorProblem[] {
  const out: DoctorProblem[] = [];
  for (const [jid, refs] of index.batchRefs) {
    const owner = owners.get(jid);
    for (const ref of refs) {
      if (owner === undefined) {
        out.push(
          problem(
            'BATCH_REF_DANGLING',
            jid,
            ref.path,
            `${ref.path} points at job ${jid}, but ${jobPath(jid)} does not exist; delete the ref (\`mrtq cleanup\` removes old ones)`,
          ),
        );
      } else if (owner !== '' && owner !== ref.bid) {
        out.push(
          problem(
            'BATCH_REF_WRONG_BATCH',
            jid,
            ref.path,
            `${ref.path} lists job ${jid} in batch ${ref.bid}, but the job belongs to batch ${owner}; delete this ref`,
          ),
        );
      }
    }
  }
  return out;
}
