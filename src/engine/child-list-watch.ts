import type { Logger } from 'pino';
import { childListSizes, describeChildList, type ChildListSize } from '../queue/tree/child-lists.js';
import type { QueueContext } from '../queue/tree/context.js';

/** How often a serving process sizes the child lists (a stat per folder). */
export const DEFAULT_CHILD_LIST_CHECK_MS = 60_000;

export interface ChildListWatchOptions {
  /** The longest child list the tree's other readers accept (MRTQ_PEER_CHILD_LIST_BYTES). */
  limitBytes: number;
  /** Time between checks, ms; the first comes at start. 0: no checks. */
  intervalMs?: number;
}

export interface ChildListWatchDeps {
  queue: QueueContext;
  metrics: { childLists(sizes: readonly ChildListSize[], limitBytes: number): void };
  log: Logger;
}

export interface ChildListWatch {
  /** Sizes every folder now (what the timer does); resolves with the sizes. */
  checkNow(): Promise<ChildListSize[]>;
  stop(): Promise<void>;
}

/**
 * Keeps Merritt's Java readers safe (docs/deploy.md): sizes every child list they read whole and
 * says when one nears or passes the limit they accept. A folder's warning is logged when its level
 * changes (ok → near → over, and back), not at every check; the metrics carry every check.
 */
export function startChildListWatch(
  deps: ChildListWatchDeps,
  options: ChildListWatchOptions,
): ChildListWatch {
  const log = deps.log.child({ component: 'child-lists' });
  const intervalMs = options.intervalMs ?? DEFAULT_CHILD_LIST_CHECK_MS;
  const levels = new Map<string, ChildListSize['level']>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<ChildListSize[]> | undefined;
  let stopped = false;

  const report = (size: ChildListSize): void => {
    const before = levels.get(size.path) ?? 'ok';
    if (size.level === 'ok') levels.delete(size.path);
    else levels.set(size.path, size.level);
    if (size.level === before) return;
    const fields = {
      folder: size.path,
      children: size.children,
      bytes: size.bytes,
      limitBytes: options.limitBytes,
    };
    if (size.level === 'over') log.error(fields, describeChildList(size, options.limitBytes));
    else if (size.level === 'near') log.warn(fields, describeChildList(size, options.limitBytes));
    else log.info(fields, `${size.path} is back within the child-list size Merritt's readers accept`);
  };

  const checkOnce = async (): Promise<ChildListSize[]> => {
    try {
      const sizes = await childListSizes(deps.queue, options.limitBytes);
      deps.metrics.childLists(sizes, options.limitBytes);
      const seen = new Set(sizes.map((size) => size.path));
      for (const size of sizes) report(size);
      // A folder that went (a batch cleaned up) is no longer near anything.
      for (const path of [...levels.keys()]) if (!seen.has(path)) levels.delete(path);
      return sizes;
    } catch (err) {
      log.warn({ err }, 'child-list sizes not read; tried again at the next check');
      return [];
    }
  };
  const checkNow = (): Promise<ChildListSize[]> => {
    running ??= checkOnce().finally(() => (running = undefined));
    return running;
  };
  const schedule = (): void => {
    if (stopped || intervalMs <= 0) return;
    timer = setTimeout(() => void checkNow().then(schedule), intervalMs);
    timer.unref();
  };
  if (intervalMs > 0) void checkNow().then(schedule);
  return {
    checkNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
