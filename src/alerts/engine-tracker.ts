/** What the tracker keeps of an engine process (from its `/engines/<id>` node). */
export interface EngineSeen {
  id: string;
  host: string;
  pid: number;
  states: readonly string[];
}

/** An engine that was registered and is not, and not replaced. */
export interface GoneEngine extends EngineSeen {
  /** When its node was first seen missing (ms since the epoch). */
  goneAt: number;
}

/** Count changes kept, enough to date the last time `min_engines` were registered. */
const COUNTS_KEPT = 200;

/**
 * Which engines are gone (src/alerts, rule `engine_gone`): an engine whose `/engines/<id>` node
 * this process saw, and then saw missing (its session ended: the process died, hung or lost
 * ZooKeeper) without a clean stop (a clean stop names itself in `/engines`' data,
 * src/queue/tree/engines.ts). It stops counting when its node comes back (a new session of the
 * same process) or when a new engine registers, which replaces it: one on the same host first,
 * else the one gone longest (a restarted process has a new id). Engines that died before this
 * process first listed them are not known here: `min_engines` covers those.
 */
export class EngineTracker {
  private readonly known = new Map<string, EngineSeen>();
  private readonly gone = new Map<string, GoneEngine>();
  private readonly counts: { at: number; count: number }[] = [];
  private listed = false;

  constructor(private readonly startedAt: number) {}

  /** A listing of `/engines` at `at`; `stoppedCleanly` are ids that removed their node on a clean stop. */
  update(engines: readonly EngineSeen[], stoppedCleanly: ReadonlySet<string>, at: number): void {
    const now = new Map(engines.map((engine) => [engine.id, engine]));
    for (const [id, engine] of this.known) {
      if (now.has(id)) continue;
      this.known.delete(id);
      if (!stoppedCleanly.has(id)) this.gone.set(id, { ...engine, goneAt: at });
    }
    for (const engine of engines) {
      if (this.known.has(engine.id)) continue;
      this.known.set(engine.id, engine);
      if (this.listed) this.replace(engine);
    }
    this.listed = true;
    if (this.counts.at(-1)?.count !== engines.length) this.counts.push({ at, count: engines.length });
    if (this.counts.length > COUNTS_KEPT) this.counts.splice(0, this.counts.length - COUNTS_KEPT);
  }

  /** The engines gone now, longest gone first. */
  goneEngines(): GoneEngine[] {
    return [...this.gone.values()].sort((a, b) => a.goneAt - b.goneAt);
  }

  /** Engines registered at the last listing (undefined before the first). */
  registered(): number | undefined {
    return this.counts.at(-1)?.count;
  }

  /**
   * When fewer than `min` engines started to be registered (without a listing of `min` or more
   * since); undefined while at least `min` are. Before the first listing with `min` engines, the
   * time this tracker started.
   */
  fewerSince(min: number): number | undefined {
    const last = this.counts.at(-1);
    if (!last || last.count >= min) return undefined;
    for (let i = this.counts.length - 1; i >= 0; i--)
      if (this.counts[i]!.count >= min) return this.counts[i + 1]!.at;
    return this.startedAt;
  }

  private replace(engine: EngineSeen): void {
    if (this.gone.delete(engine.id)) return;
    const gone = this.goneEngines();
    const replaced = gone.find((g) => g.host === engine.host) ?? gone[0];
    if (replaced) this.gone.delete(replaced.id);
  }
}
