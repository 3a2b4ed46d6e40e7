import { normaliseSessionId } from '../queue/doctor-locks.js';
import type { HeldLock } from '../queue/locks.js';
import type { ZkClient } from '../zk/index.js';
import { StepAbortedError } from './step-runner.js';

/** An event loop that did not turn for this long was stalled (frozen, swapped out, paused). */
const STALL_MS = 1000;

/**
 * Guards step starts against a stalled process. A process frozen (SIGSTOP, a VM pause) after
 * reading a job may, once it runs again, handle answers that were waiting in its socket before it
 * learns that its session expired meanwhile, and start a step another engine has already
 * committed. Its commit is refused anyway (the lock is gone), but the step would run once too
 * often. So: a tick every 100 ms; a step that starts when the last tick is older than STALL_MS
 * first asks ZooKeeper, afresh, whether its lock still belongs to its session. No request is made
 * while the loop turns normally.
 */
export class StallGuard {
  private lastTick = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly zk: ZkClient) {
    this.timer = setInterval(() => (this.lastTick = performance.now()), 100);
    this.timer.unref();
  }

  /** Resolves when the step may start; StepAbortedError when the lock is no longer this session's. */
  async beforeStep(lock: HeldLock): Promise<void> {
    if (performance.now() - this.lastTick < STALL_MS) return;
    const stat = await this.zk.exists(lock.path).catch(() => undefined);
    const owner = stat ? normaliseSessionId(stat.ephemeralOwner) : undefined;
    if (owner !== normaliseSessionId(lock.sessionId) || owner !== normaliseSessionId(this.zk.sessionId)) {
      throw new StepAbortedError(new Error(`lock ${lock.path} was lost while this process was stalled`));
    }
    this.lastTick = performance.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
