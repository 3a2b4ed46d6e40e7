import { problem, type CheckSettings, type DoctorProblem } from './doctor-problems.js';
import type { LockScan, QueueScan } from './doctor-scan.js';
import { batchChild, jobChild } from './paths.js';

/** Session ids as ZkStat.ephemeralOwner writes them: lowercase hex, no `0x`, no leading zeros. */
export function normaliseSessionId(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/^0x/, '')
    .replace(/^0+(?=.)/, '');
}

/** Every lock node of a scan: jobs', batches', access requests' and object locks. */
export function allLocks(scan: QueueScan): LockScan[] {
  const locks: LockScan[] = [];
  for (const job of scan.jobs.values()) {
    if (job.lockOwner !== undefined)
      locks.push({ item: job.jid, path: jobChild(job.jid, 'lock'), owner: job.lockOwner });
  }
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
export function checkLocks(scan: QueueScan, settings: CheckSettings): DoctorProblem[] {
  return allLocks(scan).flatMap(({ item, path, owner }) => {
    const reason = staleReason(owner, settings);
    if (!reason) return [];
    return [
      problem(
        'STALE_LOCK',
        item,
        path,
        `${path} ${reason}; ${item} stays locked for every worker: delete the node once you are sure nothing works on it`,
      ),
    ];
  });
}
