import { normaliseSessionId } from '../zk/session-id.js';
import type { HeldLock } from '../queue/locks/lock.js';
import type { ZkClient } from '../zk/index.js';
import { StepAbortedError } from './step-runner.js';

export interface StallGuardTiming {
  /** An event loop that did not turn for this long was stalled (frozen, swapped out, paused). */
  stallMs: number;
  /**
   * How long after a stall every step start is checked. Answers that waited in the socket during
   * the stall are handled in the first turns of the loop after it; this leaves ample room.
   */
  afterStallMs: number;
}

const DEFAULT_TIMING: StallGuardTiming = { stallMs: 1000, afterStallMs: 5000 };
const TICK_MS = 100;
/** Stalls remembered for `stalledSince` (the oldest are forgotten first). */
const STALLS_KEPT = 64;

/** A stall the tick noticed: when the loop turned again (performance.now()) and how long it had not. */
interface Stall {
  endedAt: number;
  ms: number;
}

/**
 * Guards step starts against a stalled process. A process frozen (SIGSTOP, a VM pause) after
 * reading a job may, once it runs again, handle answers that were waiting in its socket before it
 * learns that its session expired meanwhile, and start a step another engine has already
 * committed. Its commit is refused anyway (the lock is gone), but the step would run once too
 * often. So: a tick every 100 ms notices a stall (a gap of a second or more between ticks); a step
 * that starts during a stall or within a few seconds after one first asks ZooKeeper, afresh,
 * whether its lock still belongs to its session. The tick alone is not enough: after a thaw the
 * loop may run its timers before the stale answers, so the gap is gone by the time the step starts.
 * No request is made while the loop turns normally.
 */
export class StallGuard {
  private lastTick = performance.now();
  private lastStall = -Infinity;
  private readonly stalls: Stall[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly zk: ZkClient,
    private readonly timing: StallGuardTiming = DEFAULT_TIMING,
  ) {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  private tick(): void {
    const now = performance.now();
    const gap = now - this.lastTick;
    if (gap >= this.timing.stallMs) {
      this.lastStall = now;
      this.stalls.push({ endedAt: now, ms: gap });
      if (this.stalls.length > STALLS_KEPT) this.stalls.shift();
    }
    this.lastTick = now;
  }

  /** True while a step start must be checked: the loop is stalled now, or was a moment ago. */
  private get suspect(): boolean {
    const now = performance.now();
    return now - this.lastTick >= this.timing.stallMs || now - this.lastStall < this.timing.afterStallMs;
  }

  /**
   * True when the loop stalled (or is stalled now) since `at` (performance.now()) for `minMs` or
   * more at a time (by default any stall). A stall much shorter than a session timeout cannot have
   * cost the session: a busy machine's second of garbage collection is not a step that froze it.
   */
  stalledSince(at: number, minMs = this.timing.stallMs): boolean {
    const now = performance.now();
    if (now - this.lastTick >= Math.max(minMs, this.timing.stallMs)) return true;
    if (this.stalls.length === STALLS_KEPT && this.stalls[0]!.endedAt >= at) return true;
    return this.stalls.some((stall) => stall.endedAt >= at && stall.ms >= minMs);
  }

  /** Resolves when the step may start; StepAbortedError when the lock is no longer this session's. */
  async beforeStep(lock: HeldLock): Promise<void> {
    if (!this.suspect) return;
    const stat = await this.zk.exists(lock.path).catch(() => undefined);
    const owner = stat ? normaliseSessionId(stat.ephemeralOwner) : undefined;
    if (owner !== normaliseSessionId(lock.sessionId) || owner !== normaliseSessionId(this.zk.sessionId)) {
      throw new StepAbortedError(new Error(`lock ${lock.path} was lost while this process was stalled`));
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
