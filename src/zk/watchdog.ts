/** When to probe and when to give up on a silent server. */
export interface WatchdogTiming {
  /** Time between probes. */
  intervalMs: number;
  /** A probe not answered within this is silence. */
  probeTimeoutMs: number;
  /** Silence longer than this means the session is lost (the server will have expired it). */
  lossAfterMs: number;
}

export interface WatchdogHooks {
  /** Whether the library believes it is connected (no point probing otherwise). */
  isLinkUp(): boolean;
  /** A cheap request; resolves on any answer, rejects on timeout or connection loss. */
  probe(timeoutMs: number): Promise<void>;
  /** A probe went unanswered while the link looked up. */
  onSilence(silentForMs: number): void;
  /** A probe was answered. */
  onAnswer(): void;
  /** Nothing was heard for longer than `lossAfterMs`. */
  onLost(silentForMs: number): void;
  /** A tick while the library is (re)connecting: time to check its handshake is not stuck. */
  onLinkDown(): void;
}

/**
 * Notices a server that stopped answering. node-zookeeper-client sends pings but never checks the
 * replies, so a frozen server or a partition goes unnoticed and requests hang (DESIGN.md §6.2).
 *
 * Every `intervalMs` it probes; an unanswered probe is silence. The worst case from freeze to
 * `onSilence` is `intervalMs + probeTimeoutMs`, which the session keeps below the session timeout.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private lastHeard = Date.now();
  private probing = false;

  constructor(
    private readonly hooks: WatchdogHooks,
    private timing: WatchdogTiming,
  ) {}

  /** (Re)starts ticking with the given timing. */
  start(timing: WatchdogTiming = this.timing): void {
    this.stop();
    this.timing = timing;
    this.timer = setInterval(() => this.tick(), timing.intervalMs);
    // The session's socket keeps the process alive while it matters; the watchdog must not.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Proof of life: any answer from the server. */
  heard(): void {
    this.lastHeard = Date.now();
  }

  /** Restarts the loss clock without claiming an answer (a new client has just been started). */
  resetLossClock(): void {
    this.lastHeard = Date.now();
  }

  private tick(): void {
    const silentFor = Date.now() - this.lastHeard;
    if (silentFor > this.timing.lossAfterMs) {
      this.hooks.onLost(silentFor);
      return;
    }
    if (!this.hooks.isLinkUp()) {
      this.hooks.onLinkDown();
      return;
    }
    if (this.probing) return;
    this.probing = true;
    this.hooks.probe(this.timing.probeTimeoutMs).then(
      () => {
        this.probing = false;
        this.heard();
        this.hooks.onAnswer();
      },
      () => {
        this.probing = false;
        // A dropped connection is the library's to report; only a silent live link is ours.
        if (this.hooks.isLinkUp()) this.hooks.onSilence(Date.now() - this.lastHeard);
      },
    );
  }
}
