import type { JobListing } from '../../streams/queue-events.js';
import { parseRefName } from '../../queue/tree/paths.js';
import type { ZkClient } from '../../zk/index.js';
import { FairOrder } from './fair-order.js';
import { JobKeys } from './job-keys.js';
import {
  capOf,
  DEFAULT_SHARES_POLICY,
  hasCaps,
  keyFieldsOf,
  shareKeyOf,
  weightOf,
  type SharesPolicy,
} from './policy.js';
import type { JobConfiguration } from '../../queue/tree/records.js';

/** How long a job this intake took counts at work without `left` (a job given back is not told). */
const TAKEN_LATELY_MS = 10 * 60_000;

/** What a key has now: jobs waiting (among the refs last arranged), at work, and its weight and cap. */
export interface ShareUse {
  key: string;
  waiting: number;
  atWork: number;
  weight: number;
  cap?: number;
}

/**
 * Fair shares for one engine's intake (the consumer of the lifecycle's initial state): each read of
 * the waiting refs is arranged fairly across keys before it is offered (see FairOrder), and again
 * when the policy changes or, with caps, when the jobs at work change. Jobs at work are counted
 * from the working states' folders, which every engine watches, so every engine honours a cap
 * (two engines taking in the same moment may together pass it by the jobs they take at once), and
 * from the jobs this engine holds, so its own never pass it whenever its folders are read.
 */
export class Shares {
  private policy: SharesPolicy = DEFAULT_SHARES_POLICY;
  /** Nothing is offered before the policy is read: a cap must hold from the first job taken. */
  private policyRead = false;
  private readonly fair = new FairOrder();
  private readonly keys: JobKeys;
  /** The refs in each working state's folder, as last read (counted against caps). */
  private readonly atWork = new Map<string, readonly string[]>();
  /**
   * Jobs this intake took and this process still works on, with their key and when: counted at
   * work whatever the folders' reads say, so a read that lags behind never lets it pass a cap.
   */
  private readonly takenLately = new Map<string, { key: string; at: number }>();
  private last: JobListing | undefined;
  /** Arrangements run one at a time, the latest listing last. */
  private running: Promise<void> = Promise.resolve();

  constructor(
    zk: ZkClient,
    /** Offers an arranged listing to the intake consumer. */
    private readonly offer: (listing: JobListing) => void,
    /**
     * The job ids the intake consumer holds now (being taken in, or at work in its hands): at work
     * from the moment it claims them, before `taken` says so and whatever the folders' reads say.
     */
    private readonly inHand: () => Iterable<string> = () => [],
  ) {
    this.keys = new JobKeys(zk);
  }

  get capped(): boolean {
    return hasCaps(this.policy);
  }

  /** A new policy: the last listing is arranged again under it. */
  setPolicy(policy: SharesPolicy): void {
    this.policy = policy;
    this.policyRead = true;
    this.rearrange();
  }

  /** A read of the waiting refs: arranged, then offered. */
  listed(listing: JobListing): void {
    this.last = listing;
    this.rearrange();
  }

  /** A read of a working state's folder: counted against caps (arranged again when one applies). */
  working(state: string, refs: readonly string[]): void {
    this.atWork.set(state, refs);
    if (this.capped) this.rearrange();
  }

  /** Whether a ref beyond a read's first refs is kept anyway: a job created since, or one keyed already. */
  readonly keep = (name: string): boolean => {
    const jid = parseRefName(name)?.jid;
    return jid !== undefined && (this.keys.isNew(jid) || this.keys.has(jid));
  };

  /** The intake took a job: its key's pass moves on. */
  taken(jid: string, configuration: Partial<JobConfiguration>): void {
    const fields = keyFieldsOf(configuration);
    this.keys.note(jid, fields);
    const key = shareKeyOf(this.policy, fields);
    this.fair.taken(key, weightOf(this.policy, key));
    if (this.capped) this.takenLately.set(jid, { key, at: performance.now() });
  }

  /** A job left this process's hands (finished, failed, handed back): its folder says the rest. */
  left(jid: string): void {
    if (this.takenLately.delete(jid) && this.capped) this.rearrange();
  }

  /**
   * Jobs at work by key, each counted once: in this process's hands (being taken in by the intake,
   * or taken and handed from step to step here, which may be between two folders' reads), or in
   * the working folders as last read. What the count says thus never depends on when a folder was
   * read: a job is counted from its claim until it leaves this process's hands, then by its folder.
   */
  private atWorkByKey(working: readonly string[], held: ReadonlySet<string>): Map<string, number> {
    const since = performance.now() - TAKEN_LATELY_MS;
    for (const [jid, { at }] of this.takenLately) if (at < since) this.takenLately.delete(jid);
    const counts = new Map<string, number>();
    const counted = new Set<string>();
    const add = (jid: string, key: string | undefined): void => {
      if (key === undefined || counted.has(jid)) return;
      counted.add(jid);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
    for (const [jid, { key }] of this.takenLately) add(jid, key);
    for (const jid of held) add(jid, this.keyOfJid(jid));
    for (const ref of working) {
      const jid = parseRefName(ref)?.jid;
      if (jid !== undefined) add(jid, this.keyOfJid(jid));
    }
    return counts;
  }

  /** Each key with jobs waiting or at work, for the dashboard. */
  use(): ShareUse[] {
    const waiting = this.count(this.last?.refs ?? []);
    const atWork = this.count([...this.atWork.values()].flat());
    const keys = [...new Set([...waiting.keys(), ...atWork.keys()])].sort();
    return keys.map((key) => {
      const cap = capOf(this.policy, key);
      return {
        key,
        waiting: waiting.get(key) ?? 0,
        atWork: atWork.get(key) ?? 0,
        weight: weightOf(this.policy, key),
        ...(cap !== undefined ? { cap } : {}),
      };
    });
  }

  private keyOfRef = (ref: string): string | undefined => {
    const jid = parseRefName(ref)?.jid;
    return jid === undefined ? undefined : this.keyOfJid(jid);
  };

  private keyOfJid(jid: string): string | undefined {
    const fields = this.keys.get(jid);
    return fields === undefined ? undefined : shareKeyOf(this.policy, fields);
  }

  private count(refs: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const ref of refs) {
      const key = this.keyOfRef(ref);
      if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  private rearrange(): void {
    this.running = this.running.then(() => this.arrange()).catch(() => undefined);
  }

  /**
   * Offers the last listing arranged by the keys known now, at once (the intake never waits for
   * a read), then learns the keys it lacks and, when it learnt any, arranges and offers it again.
   */
  private async arrange(): Promise<void> {
    const listing = this.last;
    if (!listing || !this.policyRead) return;
    const unknown = this.offerArranged(listing);
    if (unknown === 0) return;
    try {
      await this.keys.learn(listing.refs);
      if (this.capped) await this.keys.learn([...this.atWork.values()].flat());
    } catch {
      return; // ZooKeeper away: the jobs of unknown keys wait for the next read
    }
    // A newer listing came meanwhile: that one is arranged next.
    if (listing === this.last) this.offerArranged(listing);
  }

  /** Offers `listing` arranged by the keys known now; answers how many of its refs have none yet. */
  private offerArranged(listing: JobListing): number {
    const capped = this.capped;
    const working = capped ? [...this.atWork.values()].flat() : [];
    const held = new Set(capped ? this.inHand() : []);
    const atWork = capped ? this.atWorkByKey(working, held) : new Map<string, number>();
    // A job the intake holds is counted at work: it is not offered again (the intake passes it by).
    const waiting =
      held.size === 0 ? listing.refs : listing.refs.filter((ref) => !held.has(parseRefName(ref)?.jid ?? ''));
    let unknown = 0;
    const keyOf = (ref: string): string | undefined => {
      const key = this.keyOfRef(ref);
      if (key === undefined) unknown++;
      return key;
    };
    const refs = this.fair.order(
      waiting,
      keyOf,
      (key) => weightOf(this.policy, key),
      (key) => {
        const cap = capOf(this.policy, key);
        return cap === undefined ? undefined : Math.max(0, cap - (atWork.get(key) ?? 0));
      },
      !capped,
    );
    this.offer({ refs, readAt: listing.readAt });
    if (capped && working.some((ref) => this.keyOfRef(ref) === undefined)) unknown++;
    return unknown;
  }
}
