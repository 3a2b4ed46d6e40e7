import { mkdir, statfs as fsStatfs } from '../fs/calls.js';
import type { ProvisionOutput } from '../../../machines/index.js';
import type { MerrittJobSteps } from '../contracts.js';
import type { QueueContext } from '../../queue/tree/context.js';
import type { JobRecord } from '../../queue/jobs/load.js';
import { findRefIn } from '../../queue/jobs/refs.js';
import { jobRef, jobStateFolder } from '../../queue/tree/paths.js';
import { workDirOf } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { provisionOutcome, waitOutcome, type SpaceStats } from '../workdir/space.js';
import { withDirectory } from '../workdir/files.js';

export type { SpaceStats } from '../workdir/space.js';

/** Reads the space of the file system holding `path`. */
export type StatfsFn = (path: string) => Promise<SpaceStats>;

/** How long a job has been in its state (ms), or undefined when that cannot be told. */
export type WaitedFn = (job: JobRecord) => Promise<number | undefined>;

/** What the provision step is built from (composition root). */
export interface ProvisionDeps {
  settings: IngestSettings;
  /** Defaults to `fs.promises.statfs`; tests inject a fuller or emptier disk. */
  statfs?: StatfsFn;
  /** How long the job has waited in provisioning; without it every evaluation counts as the first. */
  waited?: WaitedFn;
}

/**
 * How long a job has been in its state, from ZooKeeper: the age of its `/jobs/states` ref, which
 * is created when the job enters the state and stays while it waits there (a wait rewrites only
 * the status), so every engine reads the same wait, across restarts.
 */
export function waitedInQueue(queue: QueueContext): WaitedFn {
  return async (job) => {
    const expected = jobRef(job.status, job.priority, job.jobId);
    const stat =
      (await queue.zk.exists(expected)) ??
      (await findRefIn(queue, jobStateFolder(job.status), job.jobId).then((ref) =>
        ref === undefined ? undefined : queue.zk.exists(ref),
      ));
    return stat === undefined ? undefined : Math.max(0, queue.now().getTime() - stat.ctime);
  };
}

/**
 * The provisioning step (seed 003, bounded): a job proceeds only when its space needed fits and
 * the working storage stays at most `maxUsedFraction` full afterwards, counting what an
 * unprivileged user can write (`bavail`, as df does); its working directory is then created. An
 * object larger than any space this machine could give it fails at once with its size and the
 * limit; otherwise the job waits with a message saying how long it has waited, and fails once it
 * has waited `spaceWaitLimitMs`, also when the space cannot be read or the directory not made.
 */
export function createProvisionStep(deps: ProvisionDeps): MerrittJobSteps['provision'] {
  const { settings } = deps;
  const statfs: StatfsFn = deps.statfs ?? ((path) => fsStatfs(path));
  return async ({ job, signal, log }) => {
    // How long the job has waited matters only when it cannot go on now: read then (a ZooKeeper
    // request), not for every job that finds its space.
    let waited: number | undefined;
    const waitedMs = async (): Promise<number> => (waited ??= (await deps.waited?.(job)) ?? 0);
    let outcome: ProvisionOutput;
    try {
      const stats = await withDirectory(settings.workRoot, () => statfs(settings.workRoot));
      signal.throwIfAborted();
      outcome = provisionOutcome(stats, job.spaceNeeded, settings, settings.workRoot, 0);
      if (outcome.hasSpace)
        await mkdir(workDirOf(settings.workRoot, job.batchId, job.jobId), { recursive: true });
      else if (!outcome.giveUp)
        outcome = provisionOutcome(stats, job.spaceNeeded, settings, settings.workRoot, await waitedMs());
    } catch (err) {
      signal.throwIfAborted();
      const why = `cannot tell whether there is working space: ${err instanceof Error ? err.message : String(err)}`;
      outcome = waitOutcome(why, await waitedMs(), settings.spaceWaitLimitMs);
    }
    const fields = { jobId: job.jobId, spaceNeeded: job.spaceNeeded, waitedMs: waited ?? 0 };
    if (outcome.giveUp) log.warn(fields, `provisioning gave up: ${outcome.message}`);
    else if (!outcome.hasSpace) log.info(fields, `not enough working space: ${outcome.message}`);
    return outcome;
  };
}
