import { isZkError, parentPath, ZkTransactionError, type Op } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { COLLECTION_LOCKS, QUEUE_NAMES, queueLockPath } from '../tree/paths.js';
import { encodeJson } from '../tree/wire.js';
import type { Occurrence } from './schedule.js';
import { windowPath } from './store.js';
import { holdPathOf, toNode, type MaintenanceWindow, type WindowTarget } from './window.js';

/**
 * The holds maintenance windows place and lift: the very nodes an operator's pause or collection
 * hold creates (`/locks/queue/ingest`, `/locks/collections/<mnemonic>`), which Merritt's services
 * honour by their existence, with data naming the window so that only the window's own hold is
 * ever lifted by it. Every write is checked against the versions read, so of many engines one
 * does each.
 */

/** The data of a hold a window placed: `{"window","occurrence","until"}` (ISO instants). */
export interface WindowHold {
  window: string;
  occurrence: string;
  until: string;
}

/** The data a window writes into the hold it places for `occurrence`. */
export function windowHoldOf(name: string, occurrence: Occurrence): WindowHold {
  return { window: name, occurrence: occurrence.start.toISOString(), until: occurrence.end.toISOString() };
}

/** A hold's data as a window's; undefined for any other (an operator's hold is empty). */
export function decodeWindowHold(data: Buffer | undefined): WindowHold | undefined {
  if (!data || data.length === 0) return undefined;
  try {
    const value = JSON.parse(data.toString('utf8')) as Partial<WindowHold> | null;
    const { window, occurrence, until } = value ?? {};
    if (typeof window === 'string' && typeof occurrence === 'string' && typeof until === 'string')
      return { window, occurrence, until };
  } catch {
    // Not JSON: some other tool's hold, never a window's.
  }
  return undefined;
}

/** A hold node as read: the window it names (if any) and its version. Undefined when absent. */
export async function readHold(
  ctx: QueueContext,
  path: string,
): Promise<{ hold?: WindowHold; version: number } | undefined> {
  try {
    const { data, stat } = await ctx.zk.getData(path);
    const hold = decodeWindowHold(data);
    return hold ? { hold, version: stat.version } : { version: stat.version };
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}

/**
 * Every hold whose data names a window: the queue holds and the collection holds (one multiRead;
 * an operator's holds are read and left out).
 */
export async function findWindowHolds(
  ctx: QueueContext,
): Promise<{ path: string; target: WindowTarget; hold: WindowHold }[]> {
  let mnemonics: string[] = [];
  try {
    mnemonics = await ctx.zk.getChildren(COLLECTION_LOCKS);
  } catch (err) {
    if (!isZkError(err, 'NO_NODE')) throw err;
  }
  const holds: { path: string; target: WindowTarget }[] = [
    ...QUEUE_NAMES.map((queue) => ({ path: queueLockPath(queue), target: { queue } })),
    ...mnemonics.map((collection) => ({ path: `${COLLECTION_LOCKS}/${collection}`, target: { collection } })),
  ];
  const nodes = await ctx.zk.getDataMany(holds.map((h) => h.path));
  return holds.flatMap((h, i) => {
    const hold = decodeWindowHold(nodes[i]?.data);
    return hold ? [{ ...h, hold }] : [];
  });
}

/** A window as the engines write it back, with its node's version. */
export interface VersionedWindow {
  name: string;
  window: MaintenanceWindow;
  version: number;
}

const setWindowOp = ({ name, window, version }: VersionedWindow, change: Partial<MaintenanceWindow>): Op => ({
  op: 'set',
  path: windowPath(name),
  data: encodeJson(toNode({ ...window, ...change })),
  version,
});

/** True when a multi was refused because a node moved on (another engine, an operator). */
function moved(err: unknown): boolean {
  return err instanceof ZkTransactionError && ['BAD_VERSION', 'NO_NODE', 'NODE_EXISTS'].includes(err.kind);
}

/**
 * Applies `occurrence` of a window: records it as applied (over the version read) and, in the
 * same multi, creates the hold when there is none. `held`: the hold is the window's;
 * `already-held`: a hold was there (an operator's, another window's), left as it is; `moved`: the
 * window changed meanwhile (another engine applied it), nothing written.
 */
export async function applyOccurrence(
  ctx: QueueContext,
  stored: VersionedWindow,
  occurrence: Occurrence,
): Promise<'placed' | 'already-held' | 'moved'> {
  const path = holdPathOf(stored.window.target);
  const applied = setWindowOp(stored, { applied: occurrence.start.toISOString() });
  await ctx.zk.mkdirp(parentPath(path));
  if (!(await ctx.zk.exists(path))) {
    const hold = encodeJson(windowHoldOf(stored.name, occurrence));
    try {
      await ctx.zk.multi([applied, { op: 'create', path, data: hold }]);
      return 'placed';
    } catch (err) {
      if (!(err instanceof ZkTransactionError && err.failedIndex === 1 && err.kind === 'NODE_EXISTS')) {
        if (moved(err)) return 'moved';
        throw err;
      }
    }
  }
  try {
    await ctx.zk.multi([applied]);
    return 'already-held';
  } catch (err) {
    if (moved(err)) return 'moved';
    throw err;
  }
}

/** What lifting a window's hold did. */
export type LiftOutcome = 'removed' | 'handed-over' | 'not-held' | 'moved';

/**
 * Lifts the hold at `path` if its data still names `name`'s `occurrence`, checked against the
 * version read: `not-held` when it does not (an operator resumed or replaced it; another engine
 * lifted it). With `successor` (another window in force on the same target) the hold is handed
 * over to it, applied in the same multi, instead of being removed. With `releasing` the window's
 * node records, in the same multi, that the items the hold kept are being released.
 */
export async function liftHold(
  ctx: QueueContext,
  path: string,
  held: { name: string; occurrence: string },
  options: {
    successor?: { stored: VersionedWindow; occurrence: Occurrence; apply: boolean } | undefined;
    releasing?: VersionedWindow | undefined;
  } = {},
): Promise<LiftOutcome> {
  const node = await readHold(ctx, path);
  if (node?.hold?.window !== held.name || node.hold.occurrence !== held.occurrence) return 'not-held';
  const { successor, releasing } = options;
  const ops: Op[] = successor
    ? [
        {
          op: 'set',
          path,
          data: encodeJson(windowHoldOf(successor.stored.name, successor.occurrence)),
          version: node.version,
        },
      ]
    : [{ op: 'delete', path, version: node.version }];
  if (successor?.apply)
    ops.push(setWindowOp(successor.stored, { applied: successor.occurrence.start.toISOString() }));
  if (!successor && releasing) ops.push(setWindowOp(releasing, { releasing: held.occurrence }));
  try {
    await ctx.zk.multi(ops);
    return successor ? 'handed-over' : 'removed';
  } catch (err) {
    if (moved(err)) return 'moved';
    throw err;
  }
}

/**
 * Clears the window's `releasing` mark once its held items are released (read again and retried
 * while an engine or an operator writes the node meanwhile). Nothing when the mark names another
 * occurrence or the window is gone.
 */
export async function clearReleasing(ctx: QueueContext, name: string, occurrence: string): Promise<void> {
  const path = windowPath(name);
  for (let attempt = 0; attempt < 5; attempt++) {
    let read;
    try {
      read = await ctx.zk.getData(path);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return;
      throw err;
    }
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(read.data?.toString('utf8') ?? '{}') as Record<string, unknown>;
    } catch {
      return; // unreadable: the keeper reports it; nothing of ours to clear
    }
    if (value?.releasing !== occurrence) return;
    delete value.releasing;
    try {
      await ctx.zk.setData(path, encodeJson(value), read.stat.version);
      return;
    } catch (err) {
      if (!isZkError(err, 'BAD_VERSION')) throw err;
    }
  }
}
