import type { Logger } from 'pino';
import type { QueueContext } from '../tree/context.js';
import { createLockNode, type HeldLock } from './lock.js';

/** How long and how to wait for a lock another session holds. */
export interface WaitingLockOptions {
  /** First pause after a refused attempt (default 200 ms), doubled after each one up to `maxPauseMs`. */
  firstPauseMs?: number;
  /** Longest pause between attempts: Merritt's fixed retry interval for this lock. */
  maxPauseMs: number;
  /** How long to wait in all before giving up; absent: until the signal aborts. */
  limitMs?: number;
  /** Where the wait is logged (a step's logger carries its job id); default the queue's. */
  log?: Logger;
}

/** The lock, or who held it when the wait gave up; how long was waited either way. */
export type WaitingLockOutcome =
  | { held: true; lock: HeldLock; waitedMs: number }
  | { held: false; holder: string | undefined; waitedMs: number };

type Attempt = { held: true; lock: HeldLock } | { held: false; holder: string | undefined };

/**
 * Creates the ephemeral lock node (and its parent folder when missing). Not held: the holder's
 * session id (`'0'` for a persistent node, such as the storage lock Merritt's storage service
 * writes), undefined when it went away meanwhile. A lock an earlier create of this session made
 * although its answer was lost is not taken for ours: createLockNode removes it once the session
 * answers again, and that deletion wakes the waiter.
 */
async function attempt(ctx: QueueContext, path: string): Promise<Attempt> {
  let created = await createLockNode(ctx, path);
  if (!created.held && created.reason === 'gone') {
    await ctx.zk.mkdirp(path.slice(0, path.lastIndexOf('/')));
    created = await createLockNode(ctx, path);
  }
  if (created.held) return created;
  return { held: false, holder: (await ctx.zk.exists(path))?.ephemeralOwner };
}

/**
 * Wakes a waiter when the lock node changes or goes away. One callback per wait: the client
 * registers a callback once per path however often it is re-armed, so a long wait does not pile
 * up watchers.
 */
class NodeWatch {
  private changed = false;
  private wake: (() => void) | undefined;
  readonly callback = (): void => {
    this.changed = true;
    this.wake?.();
  };

  constructor(
    private readonly ctx: QueueContext,
    private readonly path: string,
  ) {}

  /** Waits `ms`, or less when the node changes or is already gone; rejects when `signal` aborts. */
  async pause(ms: number, signal: AbortSignal): Promise<void> {
    this.changed = false;
    const present = await this.ctx.zk.exists(this.path, this.callback);
    if (!present || this.changed) return;
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.wake = undefined;
        resolve();
      };
      const aborted = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        reject(signal.reason as Error);
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      signal.addEventListener('abort', aborted, { once: true });
    });
  }
}

/**
 * Takes the ephemeral lock at `path`, waiting while another session holds it as Merritt's services
 * wait for theirs (merritt-protocols.md §1(c), §2(b), §3): tried again when the node is deleted
 * (a watch) and, as a safety net, after pauses growing from `firstPauseMs` to `maxPauseMs`. The
 * wait is logged once, when it starts, naming the holder. Gives up after `limitMs` with the holder
 * (an expected outcome, a value); rejects with the signal's reason when it aborts. The caller
 * releases the lock (releaseEventually).
 */
export async function takeWaitingLock(
  ctx: QueueContext,
  path: string,
  signal: AbortSignal,
  options: WaitingLockOptions,
): Promise<WaitingLockOutcome> {
  const log = options.log ?? ctx.log;
  const started = Date.now();
  const watch = new NodeWatch(ctx, path);
  let pauseMs = Math.min(options.firstPauseMs ?? 200, options.maxPauseMs);
  for (let attempts = 1; ; attempts += 1) {
    signal.throwIfAborted();
    const outcome = await attempt(ctx, path);
    const waitedMs = Date.now() - started;
    if (outcome.held) {
      if (attempts > 1) log.info({ lock: path, waitedMs, attempts }, 'lock taken after waiting');
      return { held: true, lock: outcome.lock, waitedMs };
    }
    const left = options.limitMs === undefined ? pauseMs : options.limitMs - waitedMs;
    if (left <= 0) return { held: false, holder: outcome.holder, waitedMs };
    if (attempts === 1)
      log.info(
        { lock: path, holder: outcome.holder, limitMs: options.limitMs },
        'lock held elsewhere; waiting',
      );
    await watch.pause(Math.min(pauseMs, left), signal);
    pauseMs = Math.min(pauseMs * 2, options.maxPauseMs);
  }
}
