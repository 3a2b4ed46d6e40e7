import type { EventObject } from 'xstate';
import type { QueueContext } from '../../queue/tree/context.js';
import { isQueueError } from '../../queue/tree/errors.js';
import type { EngineDeps } from '../deps.js';
import { isIndeterminate, settle } from '../indeterminate.js';
import { releaseEventually, type HeldLock } from '../../queue/locks/lock.js';
import { StepAbortedError } from '../step-runner.js';

/** What the runner reads of any item: its status and the version of its status node. */
export interface ItemStatus {
  status: string;
  statusVersion: number;
}

/** An item as acquired: its record, and the lock this session holds on it. */
type Acquired = { lock: HeldLock };

/** One kind of item (job, batch, access request) as the runner sees it: `H` as acquired, `R` its record. */
export interface ItemKind<H extends Acquired, R extends ItemStatus> {
  /** Names the kind in log messages, and their field of its id: `job` logs `jobId`. */
  noun: 'job' | 'batch' | 'access';
  /** The record as read when the item was acquired (or last committed). */
  record(held: H): R;
  /** The ledger's item: jid…, bid… or qid… (the counting ledger tells the kinds apart by it). */
  id(record: R): string;
  /** Reads the item afresh, to settle a commit whose outcome is unknown. */
  load(queue: QueueContext, record: R): Promise<ItemStatus>;
}

/** One attempt at committing an item's transition (a retry after settle makes a new one). */
export interface CommitAttempt<R> {
  /** Writes the transition in one multi that checks the lock; resolves with the item after it. */
  write(): Promise<R>;
  /** The item after the transition as the machine plans it: what settle looks for. */
  expected(): R;
  /** After the commit is in the ledger; `settled` when it was found applied after an unknown outcome. */
  committed?(next: R, settled: boolean): Promise<void> | void;
  /** After the write failed, before anything else is done about it. */
  failed?(): void;
  /** What the item's history keeps of this step besides its transition (see LedgerEntry.detail). */
  detail?(): Readonly<Record<string, unknown>> | undefined;
}

/** What a step gave, or why it gave nothing: the stall guard refused it, or it was aborted. */
export type Stepped<T> = { ran: true; value: T } | { ran: false; reason: 'stalled' | 'aborted' };

/** An item this session holds, with what every part of the runner needs to work on it. */
interface Held<R extends ItemStatus> {
  deps: EngineDeps;
  kind: ItemKind<never, R>;
  record: R;
  lock: HeldLock;
}

/**
 * Runs the step of an item this session holds: the stall guard first (a process that was frozen
 * may have lost the lock meanwhile), then its start in the ledger, then `run`. A step that may
 * not start or was aborted (session loss, shutdown) is discarded, its lock released; a step that
 * failed is discarded too and its error rethrown.
 */
export async function stepItem<H extends Acquired, R extends ItemStatus, T>(
  deps: EngineDeps,
  kind: ItemKind<H, R>,
  acquired: H,
  run: () => Promise<T>,
): Promise<Stepped<T>> {
  const item: Held<R> = { deps, kind, record: kind.record(acquired), lock: acquired.lock };
  try {
    await deps.beforeStep?.(item.lock);
  } catch (err) {
    await discard(item, 'stalled', err);
    return { ran: false, reason: 'stalled' };
  }
  const { status: state, statusVersion: version } = item.record;
  deps.ledger.record({ kind: 'start', item: kind.id(item.record), state, version });
  try {
    return { ran: true, value: await run() };
  } catch (err) {
    const aborted = err instanceof StepAbortedError;
    await discard(item, aborted ? 'aborted' : 'step error', err);
    if (!aborted) throw err;
    return { ran: false, reason: 'aborted' };
  }
}

/**
 * Commits an item's transition, and maps what can go wrong the same way for every kind: a lock
 * lost (its session gone too) or a status moved on is a stale result, discarded; a timeout or
 * lost connection is settled (see `settle`); anything else is discarded and rethrown. A write
 * that commits nothing always ends with the lock released. `attempt` is made before each write;
 * what it throws (a machine that refuses the event) is thrown as it is. Resolves with the item
 * after the commit, or undefined when nothing was committed.
 */
export function commitItem<H extends Acquired, R extends ItemStatus>(
  deps: EngineDeps,
  kind: ItemKind<H, R>,
  acquired: H,
  event: EventObject,
  attempt: () => CommitAttempt<R>,
): Promise<R | undefined> {
  return commit({ deps, kind, record: kind.record(acquired), lock: acquired.lock }, event, attempt, false);
}

async function commit<R extends ItemStatus>(
  item: Held<R>,
  event: EventObject,
  attempt: () => CommitAttempt<R>,
  retried: boolean,
): Promise<R | undefined> {
  const plan = attempt();
  let next: R;
  try {
    next = await plan.write();
  } catch (err) {
    plan.failed?.();
    if (isQueueError(err) && (err.code === 'LOCK_LOST' || err.code === 'CONFLICT')) {
      await discard(item, err.code, err, event);
      return undefined;
    }
    if (isIndeterminate(err)) return settleCommit(item, event, attempt, plan, retried, err);
    await discard(item, 'commit error', err, event);
    throw err;
  }
  await recordCommit(item, event, next, plan, false);
  return next;
}

/** A commit that timed out or lost its connection may have been applied: find out before going on. */
async function settleCommit<R extends ItemStatus>(
  item: Held<R>,
  event: EventObject,
  attempt: () => CommitAttempt<R>,
  plan: CommitAttempt<R>,
  retried: boolean,
  err: unknown,
): Promise<R | undefined> {
  const { deps, kind, record } = item;
  const expected = plan.expected();
  const outcome = await settle(deps.queue.zk, () => kind.load(deps.queue, record), {
    status: expected.status,
    fromVersion: record.statusVersion,
    lockSessionId: item.lock.sessionId,
  }).catch(() => 'moved-on' as const);
  deps.log.warn(
    { [`${kind.noun}Id`]: kind.id(record), event: event.type, outcome, err },
    `${kind.noun} commit outcome was unknown`,
  );
  if (outcome === 'applied') {
    await recordCommit(item, event, expected, plan, true);
    return expected;
  }
  // Not applied while the lock is still ours: the same commit is safe to make once more.
  if (outcome === 'not-applied' && !retried) return commit(item, event, attempt, true);
  await discard(item, `commit outcome unknown (${outcome})`, err, event);
  return undefined;
}

async function recordCommit<R extends ItemStatus>(
  { deps, kind, record }: Held<R>,
  event: EventObject,
  next: R,
  plan: CommitAttempt<R>,
  settled: boolean,
): Promise<void> {
  const { status: state, statusVersion: version } = record;
  const item = kind.id(record);
  const message = (event as { message?: unknown }).message;
  const detail = plan.detail?.();
  deps.ledger.record({
    kind: 'commit',
    item,
    state,
    version,
    event: event.type,
    to: next.status,
    ...(typeof message === 'string' ? { message } : {}),
    ...(detail ? { detail } : {}),
  });
  await plan.committed?.(next, settled);
}

/** A step or commit that ended without a commit: in the ledger, in the log, and its lock let go. */
async function discard<R extends ItemStatus>(
  { deps, kind, record, lock }: Held<R>,
  reason: string,
  err: unknown,
  event?: EventObject,
): Promise<void> {
  const { status: state, statusVersion: version } = record;
  const item = kind.id(record);
  const message = err instanceof Error ? err.message : undefined;
  deps.ledger.record({
    kind: 'discard',
    item,
    state,
    version,
    ...(event && { event: event.type }),
    reason,
    ...(message !== undefined ? { message } : {}),
  });
  const stale = reason === 'LOCK_LOST' || reason === 'CONFLICT';
  deps.log.warn(
    { [`${kind.noun}Id`]: item, state, event: event?.type, reason, err },
    stale ? `stale ${kind.noun} result discarded` : `${kind.noun} step ended without a commit`,
  );
  // After a conflict the lock is still ours; a lost one is left alone (see releaseLock).
  await releaseEventually(deps.queue, lock);
}
