import type { Logger } from 'pino';
import { retry, tap, type Subscription } from 'rxjs';
import type { QueueContext } from '../queue/tree/context.js';
import { applyOccurrence, findWindowHolds, liftHold, type VersionedWindow } from '../queue/windows/holds.js';
import { activeOccurrence, nextBoundary, type Occurrence } from '../queue/windows/schedule.js';
import { decodeWindow, type StoredWindow } from '../queue/windows/store.js';
import { describeTarget, holdPathOf, type WindowTarget } from '../queue/windows/window.js';
import { windowNodes$ } from '../streams/windows.js';
import { WindowReleases } from './window-releases.js';
import { isZkError } from '../zk/index.js';

/** The longest a timer waits (Node's timers take at most 2^31-1 ms); waking early costs nothing. */
const MAX_WAIT_MS = 86_400_000;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;

export interface WindowsKeeperDeps {
  queue: QueueContext;
  log: Logger;
  /** Releases the held items of a collection whose window hold was lifted (releaseHeldItems, src/admin/collections.ts). */
  releaseHeld(mnemonic: string): Promise<unknown>;
  /** The clock, ms since the epoch (default Date.now). */
  now?: () => number;
}

/** A running keeper. */
export interface WindowsKeeper {
  /** The windows this keeper sees in force now: name → the start (ISO) of the occurrence. */
  inForce(): ReadonlyMap<string, string>;
  stop(): Promise<void>;
}

/** An occurrence this keeper saw in force: the hold it concerns. */
interface InForce {
  path: string;
  target: WindowTarget;
  occurrence: string;
}

/** A window in force now, with what applying or handing over to it needs. */
interface Current {
  stored: VersionedWindow;
  occurrence: Occurrence;
  path: string;
}

const iso = (date: Date): string => date.toISOString();
const inForce = (cur: Current): InForce => ({
  path: cur.path,
  target: cur.stored.window.target,
  occurrence: iso(cur.occurrence.start),
});

/**
 * Keeps the maintenance windows (docs/engine.md, "Maintenance windows"), in every serving process:
 * watches `/policies/windows`, and at every change and at each window's start and end (one timer
 * to the nearest; no polling) places or lifts the windows' holds. Of many engines one applies each
 * start and lifts each hold: every write is checked against the versions read. A hold not placed
 * by the window (an operator's) is never lifted by it, and an occurrence applied is not applied
 * again (an operator who resumes during a window wins). Nothing is requested while nothing changes.
 */
export function startWindowsKeeper(deps: WindowsKeeperDeps): WindowsKeeper {
  return new Keeper(deps);
}

class Keeper implements WindowsKeeper {
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly ctx: QueueContext;
  private windows = new Map<string, StoredWindow>();
  private readonly held = new Map<string, InForce>();
  private readonly problems = new Map<string, string>();
  private readonly releases: WindowReleases;
  private readonly subscription: Subscription;
  private loaded = false;
  private swept = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = 0;

  constructor(deps: WindowsKeeperDeps) {
    this.ctx = deps.queue;
    this.log = deps.log.child({ component: 'windows' });
    this.now = deps.now ?? Date.now;
    this.releases = new WindowReleases(this.ctx, this.log, (mnemonic) => deps.releaseHeld(mnemonic));
    this.subscription = windowNodes$(this.ctx.zk)
      .pipe(
        tap({
          error: (err: unknown) => this.log.warn({ err }, 'maintenance windows not read; trying again'),
        }),
        retry({ delay: 5000, resetOnSuccess: true }),
      )
      .subscribe((nodes) => {
        this.windows = new Map(
          [...nodes].map(([name, node]) => [name, decodeWindow(name, node.data, node.stat.version)]),
        );
        this.reportProblems();
        this.loaded = true;
        this.trigger();
      });
  }

  inForce(): ReadonlyMap<string, string> {
    return new Map([...this.held].map(([name, { occurrence }]) => [name, occurrence]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription.unsubscribe();
    clearTimeout(this.timer);
    await this.running;
    await this.releases.settled();
  }

  private reportProblems(): void {
    for (const { name, problem } of this.windows.values()) {
      if (problem === undefined) this.problems.delete(name);
      else if (this.problems.get(name) !== problem) {
        this.problems.set(name, problem);
        this.log.warn({ window: name, problem }, 'maintenance window unreadable: ignored until it is fixed');
      }
    }
  }

  private trigger(): void {
    if (!this.loaded || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runLoop().finally(() => (this.running = undefined));
  }

  private async runLoop(): Promise<void> {
    do {
      this.again = false;
      try {
        const clean = await this.evaluate(new Date(this.now()));
        this.retryMs = clean ? 0 : Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, this.retryMs * 2));
      } catch (err) {
        this.retryMs = Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, this.retryMs * 2));
        const level = isZkError(err) && err.retryable ? 'info' : 'warn';
        this.log[level]({ err, retryMs: this.retryMs }, 'maintenance windows not applied; trying again');
      }
      this.schedule();
    } while (this.again && !this.stopped);
  }

  /** The windows in force now (not skipped), by name. */
  private current(now: Date): Map<string, Current> {
    const current = new Map<string, Current>();
    for (const { name, window, version } of this.windows.values()) {
      const occurrence = window && activeOccurrence(window, now);
      if (window && occurrence)
        current.set(name, { stored: { name, window, version }, occurrence, path: holdPathOf(window.target) });
    }
    return current;
  }

  /** One pass: lift what ended, place what started. False when something must be tried again. */
  private async evaluate(now: Date): Promise<boolean> {
    const current = this.current(now);
    let clean = true;
    if (!this.swept) {
      clean = (await this.sweep(current)) && clean;
      this.swept = true;
    }
    this.releases.resume(this.windows.values(), current);
    for (const [name, was] of [...this.held]) {
      const cur = current.get(name);
      if (cur && cur.path === was.path && iso(cur.occurrence.start) === was.occurrence) continue;
      // An unreadable window keeps its hold until it is fixed (the API never writes one).
      if (this.windows.get(name)?.problem !== undefined) continue;
      // Deleted first: a hold handed to this window's next occurrence is recorded by lift.
      this.held.delete(name);
      if (!(await this.lift(name, was, current))) {
        this.held.set(name, was);
        clean = false;
      }
    }
    for (const [name, cur] of current) {
      if (this.held.has(name)) continue;
      if (cur.stored.window.applied !== iso(cur.occurrence.start) && !(await this.apply(cur))) {
        clean = false;
        continue;
      }
      this.held.set(name, inForce(cur));
    }
    return clean;
  }

  private async apply(cur: Current): Promise<boolean> {
    const outcome = await applyOccurrence(this.ctx, cur.stored, cur.occurrence);
    if (outcome === 'moved') return false;
    const { name, window } = cur.stored;
    this.log.info(
      {
        window: name,
        target: describeTarget(window.target),
        occurrence: iso(cur.occurrence.start),
        until: iso(cur.occurrence.end),
        timezone: window.timezone,
        reason: window.reason,
      },
      outcome === 'placed'
        ? 'maintenance window opened: hold placed'
        : 'maintenance window opened: already held, that hold is left as it is',
    );
    return true;
  }

  /** Lifts the hold `was` names (or hands it to a window in force on the same target). False: try again. */
  private async lift(name: string, was: InForce, current: Map<string, Current>): Promise<boolean> {
    const next = [...current.values()].find(
      (c) => c.path === was.path && !(c.stored.name === name && iso(c.occurrence.start) === was.occurrence),
    );
    const successor = next && {
      ...next,
      apply: next.stored.window.applied !== iso(next.occurrence.start),
    };
    const stored = this.windows.get(name);
    const collection = 'collection' in was.target ? was.target.collection : undefined;
    const releasing =
      collection !== undefined && stored?.window
        ? { name, window: stored.window, version: stored.version }
        : undefined;
    const held = { name, occurrence: was.occurrence };
    const outcome = await liftHold(this.ctx, was.path, held, { successor, releasing });
    if (outcome === 'moved') return false;
    const fields = { window: name, target: describeTarget(was.target), occurrence: was.occurrence };
    if (outcome === 'not-held')
      this.log.debug(fields, 'maintenance window over; its hold was lifted already');
    if (outcome === 'handed-over' && successor) {
      const to = successor.stored.name;
      this.log.info({ ...fields, to }, 'maintenance window closed: hold handed to the window now in force');
      this.held.set(to, inForce(successor));
    }
    if (outcome === 'removed') {
      this.log.info(fields, 'maintenance window closed: hold lifted');
      if (collection !== undefined)
        this.releases.release(name, collection, was.occurrence, releasing !== undefined);
    }
    return true;
  }

  /**
   * At start: holds a window placed whose occurrence is over (or whose window is gone), left by
   * engines that ended before the window did, are lifted. True when all were.
   */
  private async sweep(current: Map<string, Current>): Promise<boolean> {
    let clean = true;
    for (const { path, target, hold } of await findWindowHolds(this.ctx)) {
      const cur = current.get(hold.window);
      if (cur && cur.path === path && iso(cur.occurrence.start) === hold.occurrence) continue;
      if (this.windows.get(hold.window)?.problem !== undefined) continue;
      const lifted = await this.lift(hold.window, { path, target, occurrence: hold.occurrence }, current);
      clean = lifted && clean;
    }
    return clean;
  }

  /** One timer: to the nearest start or end of any window, or sooner to try again. */
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const now = this.now();
    let wait = MAX_WAIT_MS;
    for (const { window } of this.windows.values()) {
      const at = window && nextBoundary(window, new Date(now));
      if (at) wait = Math.min(wait, at.getTime() - now);
    }
    if (this.retryMs > 0) wait = Math.min(wait, this.retryMs);
    // A millisecond past the boundary: the timer fires at it or after, never before.
    this.timer = setTimeout(() => this.trigger(), Math.max(0, wait) + 1);
    this.timer.unref();
  }
}
