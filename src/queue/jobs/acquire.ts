import type { QueueContext } from '../tree/context.js';
import { isQueueError, QueueError } from '../tree/errors.js';
import { loadJob, type JobRecord } from './load.js';
import type { StepAttempt } from './attempts.js';
import { retryWaitMs } from './retry-record.js';
import { jobLeftReason, noteJobLeft } from './payload.js';
import { releaseEventually, tryLock, type HeldLock } from '../locks/lock.js';
import { jobPath, jobStateFolder, parseRefName, sortRefs } from '../tree/paths.js';

/** A job this session holds the lock of, as it was when acquired. */
export interface AcquiredJob {
  job: JobRecord;
  lock: HeldLock;
  /** The `/jobs/states/...` ref the job was found under. */
  ref: string;
  /**
   * The attempt at the job's step already recorded for this holder: by the commit that handed
   * the job over to it (see JobCommitOptions.attempt). Absent when the job was taken from its folder.
   */
  attempt?: StepAttempt;
}

export interface AcquireOptions {
  /**
   * Ref names to try, already sorted (acquisition order), e.g. from a `jobWork$` stream; read
   * from ZooKeeper (and sorted) when absent. Not copied: a consumer offers a folder of 100,000
   * refs to every acquire.
   */
  candidates?: readonly string[];
  /** Called for each item that could not be used (unreadable, state mismatch); acquire goes on. */
  onInvalid?: (jid: string, error: QueueError) => void;
  /** Skip these jids without touching them (e.g. ones this process already works on). */
  skip?: (jid: string) => boolean;
  /** Called for each item skipped because another session holds its lock (to watch for its release). */
  onLocked?: (jid: string) => void;
  /**
   * Called for a job left to the ingest service that wrote it (its payload is on that service's
   * disk and this state's step needs it, see job-payload.ts): not locked, its status message says
   * why. When absent, `onInvalid` is told instead, so the caller skips it until its nodes change.
   */
  onLeft?: (jid: string, reason: string) => void;
  /**
   * Called for a job waiting for its step's next attempt (`/jobs/JID/retry`, see retry-record.ts)
   * with the ms it still waits: its lock is let go at once and it is passed by until then.
   */
  onWaiting?: (jid: string, ms: number) => void;
}

/**
 * Takes the first job of a state folder, in priority order (lower `PP` first, then jid), whose
 * ephemeral lock this session can create. Locked items and refs whose job is gone are skipped;
 * items whose data is unreadable, or whose status does not match the folder, are reported
 * through `onInvalid` and skipped; jobs left to the ingest service that wrote them, through
 * `onLeft`. Resolves undefined when nothing can be taken.
 */
export async function acquireJob(
  ctx: QueueContext,
  state: string,
  options: AcquireOptions = {},
): Promise<AcquiredJob | undefined> {
  const folder = jobStateFolder(state);
  const names = options.candidates ?? sortRefs(await ctx.zk.getChildren(folder));
  for (const name of names) {
    const parsed = parseRefName(name);
    if (!parsed || options.skip?.(parsed.jid)) continue;
    if (await leftForIngest(ctx, parsed.jid, state, options)) continue;
    const attempt = await tryLock(ctx, jobPath(parsed.jid));
    if (!attempt.held) {
      if (attempt.reason === 'locked') options.onLocked?.(parsed.jid);
      continue;
    }
    const acquired = await loadLocked(ctx, parsed.jid, state, `${folder}/${name}`, attempt.lock, options);
    if (acquired) return acquired;
  }
  return undefined;
}

/**
 * A job left to the ingest service that wrote it is neither locked nor moved (Merritt's ingest
 * would find it locked and pass it by): checked before the lock, from its configuration alone
 * (one read, and one more for a job that is left).
 */
async function leftForIngest(
  ctx: QueueContext,
  jid: string,
  state: string,
  options: AcquireOptions,
): Promise<boolean> {
  const reason = await jobLeftReason(ctx, jid, state);
  if (reason === undefined) return false;
  // That service works on it now: watched through its lock like any job locked elsewhere, and
  // said to be left once it lets it go (in the state it leaves it in).
  if (await ctx.zk.exists(`${jobPath(jid)}/lock`)) {
    options.onLocked?.(jid);
    return true;
  }
  await noteJobLeft(ctx, jid, state, reason);
  if (options.onLeft) options.onLeft(jid, reason);
  else if (options.onInvalid) options.onInvalid(jid, new QueueError('ITEM_INVALID', reason, jobPath(jid)));
  else ctx.log.debug({ jobId: jid, state, reason }, 'job left for the ingest service that wrote it');
  return true;
}

async function loadLocked(
  ctx: QueueContext,
  jid: string,
  state: string,
  ref: string,
  lock: HeldLock,
  options: AcquireOptions,
): Promise<AcquiredJob | undefined> {
  try {
    const job = await loadJob(ctx, jid);
    if (job.status !== state) {
      // Moved on since we listed the folder (another worker committed): not an error.
      if (!(await ctx.zk.exists(ref))) {
        await releaseEventually(ctx, lock);
        return undefined;
      }
      throw new QueueError(
        'ITEM_INVALID',
        `job ${jid} has status ${job.status} but a ref in ${state} (${ref})`,
        jobPath(jid),
      );
    }
    const waitMs = retryWaitMs(job.retry, job, ctx.now().getTime());
    if (waitMs > 0) {
      await releaseEventually(ctx, lock);
      options.onWaiting?.(jid, waitMs);
      return undefined;
    }
    return { job, lock, ref };
  } catch (err) {
    // Released even when ZooKeeper is away right now (the read failed for that, most likely):
    // a lock of a session that lives on would block the job for as long as the session does.
    await releaseEventually(ctx, lock);
    if (!isQueueError(err) || (err.code !== 'ITEM_INVALID' && err.code !== 'NOT_FOUND')) throw err;
    // The caller that is told reports it (the engine once per change); else it is logged here.
    if (options.onInvalid) options.onInvalid(jid, err);
    else ctx.log.warn({ jobId: jid, state, err }, 'skipping job that cannot be used');
    return undefined;
  }
}
