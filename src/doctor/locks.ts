import { problem, type CheckSettings, type DoctorProblem } from './problems.js';
import type { JobScan, LockScan, QueueScan } from '../queue/scan/snapshot.js';
import { batchChild, jobChild } from '../queue/tree/paths.js';

/** A job's lock node, when it has one. */
export function jobLock(job: JobScan): LockScan | undefined {
  if (job.lockOwner === undefined) return undefined;
  return { item: job.jid, path: jobChild(job.jid, 'lock'), owner: job.lockOwner };
}

/** The lock nodes that are not jobs': batches', access requests' and object locks. */
export function otherLocks(scan: Pick<QueueScan, 'batches' | 'otherLocks'>): LockScan[] {
  const locks: LockScan[] = [];
  for (const batch of scan.batches.values()) {
    if (batch.lockOwner !== undefined) {
      locks.push({ item: batch.bid, path: batchChild(batch.bid, 'lock'), owner: batch.lockOwner });
    }
  }
  return [...locks, ...scan.otherLocks];
}

function staleReason(owner: string, settings: CheckSettings): string | undefined {
  if (owner === '0') return 'is a persistent node (ephemeralOwner 0), so no session will ever release it';
  if (settings.liveSessions && !settings.liveSessions.has(owner))
    return `is owned by session 0x${owner}, which is not live`;
  return undefined;
}

/**
 * Locks no live session owns. A persistent node named lock is always stale; an ephemeral one only
 * when the caller said which sessions are alive (`CheckSettings.liveSessions`).
 */
export function checkLocks(locks: Iterable<LockScan>, settings: CheckSettings): DoctorProblem[] {
  const problems: DoctorProblem[] = [];
  for (const { item, path, owner } of locks) {
    const reason = staleReason(owner, settings);
    if (!reason) continue;
    problems.push(
      problem(
        'STALE_LOCK',
        item,
        path,
        `${path} ${reason}; ${item} stays locked for every worker: delete the node once you are sure nothing works on it`,
      ),
    );
  }
  return problems;
}
