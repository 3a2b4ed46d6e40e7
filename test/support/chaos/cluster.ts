import { startEngineProcess, readLedger, type EngineProcess } from '../engine-process.js';
import type { LedgerLine } from './ledger-check.js';
import type { ChaosProfile } from './profile.js';
import { allSettledOrThrow } from '../settled.js';

/**
 * A set of `mrtq serve` processes sharing one ledger file, which a scenario kills, freezes and
 * restarts. Every process appends its step starts and commits to the ledger.
 */
export class EngineCluster {
  readonly running: EngineProcess[] = [];
  kills = 0;
  restarts = 0;

  constructor(
    private readonly connectString: () => string,
    readonly ledgerFile: string,
    private readonly args: string[] = [],
    private readonly env: Record<string, string> = {},
  ) {}

  async start(count: number): Promise<void> {
    await allSettledOrThrow(Array.from({ length: count }, () => this.startOne()));
  }

  /** Starts one more process; `commandPrefix` runs it through a command (`ip netns exec NS`). */
  async startOne(extraArgs: string[] = [], commandPrefix: string[] = []): Promise<EngineProcess> {
    const engine = await startEngineProcess(
      this.connectString(),
      ['--ledger', this.ledgerFile, '--sweep', '5000', ...this.args, ...extraArgs],
      this.env,
      commandPrefix,
    );
    this.running.push(engine);
    return engine;
  }

  /** SIGKILL a process the profile picks, then start a replacement. */
  async killOneAndReplace(profile: ChaosProfile): Promise<void> {
    const victim = profile.pick(this.running);
    this.running.splice(this.running.indexOf(victim), 1);
    victim.signal('SIGKILL');
    await victim.exited;
    this.kills++;
    await this.startOne();
    this.restarts++;
  }

  ledger(): LedgerLine[] {
    return readLedger(this.ledgerFile);
  }

  /** Stops every process gracefully (SIGCONT first, in case one is frozen); resolves with exit codes. */
  async stopAll(): Promise<(number | string)[]> {
    const stopping = this.running.splice(0).map(async (p) => {
      p.signal('SIGCONT');
      p.signal('SIGTERM');
      return p.exited;
    });
    return Promise.all(stopping);
  }

  killAll(): void {
    for (const p of this.running.splice(0)) p.signal('SIGKILL');
  }
}
