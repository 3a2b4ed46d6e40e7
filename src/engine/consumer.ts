import type { Logger } from 'pino';
import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import type { WaitingItems } from './waiting-items.js';

/** How a consumer finds and does one kind of work. */
export interface ConsumerSpec<A> {
  /** e.g. `downloading` or `batch report`; used in logs. */
  name: string;
  /** Items worked on at once. */
  limit: number;
  /**
   * Takes the next item among `candidates`, skipping `skip`; reports items locked elsewhere and
   * items that could not be used (both skipped until their watch fires).
   */
  acquire(
    candidates: readonly string[],
    skip: (id: string) => boolean,
    onLocked: (id: string) => void,
    onUnusable: (id: string) => void,
  ): Promise<A | undefined>;
  idOf(item: A): string;
  /**
   * Does the work; resolves `'defer'` when the item stays where it was (re-evaluated later),
   * `'moved'` when it left this consumer's folder (a stale listing may still name it).
   */
  work(item: A, signal: AbortSignal): Promise<'defer' | 'moved' | void>;
  /** The item id a candidate names (default: the candidate itself). */
  candidateId?(candidate: string): string;
  /** Items this process already works on in another consumer: skipped without a request. */
  busyElsewhere?(id: string): boolean;
  /**
   * The rank of a candidate in acquisition order that a handed-over item may not jump (default:
   * the candidate itself). Jobs rank by priority alone: a job this process already holds goes on
   * before waiting jobs of the same priority, never before a waiting job of a better one.
   */
  rankOf?(candidate: string): string;
  /** Items locked by another session (watched; shared between consumers of the same items). */
  locks: WaitingItems;
  /** Items that could not be used (incomplete or bad data), watched until their nodes change. */
  unusable?: WaitingItems;
  log: Logger;
}

const RETRY_AFTER_ERROR_MS = 1000;
/** Moved candidates at the head of the list that are dropped at once (a copy of the rest each time). */
const MOVED_HEAD_DROP = 64;

/**
 * Pulls work for one state: woken by the streams (`offer`), it acquires items one at a time
 * up to its concurrency limit and runs them; it never polls. Items locked by other sessions
 * are watched, so a crashed owner's work is picked up when its ephemeral lock disappears.
 */
export class Consumer<A> {
  private candidates: readonly string[] = [];
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly deferred = new Set<string>();
  /** Items that left this folder since the candidates were listed. */
  private readonly moved = new Set<string>();
  /** Slots promised to items handed over from another consumer of this process. */
  private reserved = 0;
  private paused = false;
  private stopped = false;
  private pumping = false;
  private dirty = false;
  private retryTimer: NodeJS.Timeout | undefined;

  private readonly wants = new BehaviorSubject(true);
  /**
   * Whether this consumer could take an item now (running, not paused, a slot free): its
   * folder need not be re-read while it could not.
   */
  readonly demand$: Observable<boolean> = this.wants.pipe(distinctUntilChanged());

  constructor(private readonly spec: ConsumerSpec<A>) {}

  private updateDemand(): void {
    this.wants.next(!this.stopped && !this.paused && this.inFlight.size + this.reserved < this.spec.limit);
  }

  get name(): string {
    return this.spec.name;
  }
  get running(): number {
    return this.inFlight.size;
  }

  /** The current candidates (e.g. the children of the state folder); wakes the consumer. */
  offer(candidates: readonly string[]): void {
    this.candidates = candidates;
    this.moved.clear();
    this.poke();
  }

  /**
   * `id` has left this consumer's folder by another way than its work (failed as incomplete): it
   * is not tried again from the current candidates, which may still name it.
   */
  left(id: string): void {
    this.moved.add(id);
  }

  /** True while this consumer works on `id`. */
  holds(id: string): boolean {
    return this.inFlight.has(id);
  }

  /**
   * Promises a slot to an item this process will hand over (it holds the lock already), when
   * there is one free and no waiting candidate ranks before `candidate` (see `rankOf`): a
   * handed-over item never jumps a better-ranked one. Follow with adopt or unreserve.
   */
  reserve(candidate: string): boolean {
    if (this.stopped || this.paused || this.inFlight.size + this.reserved >= this.spec.limit) return false;
    const first = this.candidates.find((c) => !this.skips(this.idOf(c)));
    if (first !== undefined && this.rankOf(first) < this.rankOf(candidate)) return false;
    this.reserved++;
    this.updateDemand();
    return true;
  }

  /** Starts a handed-over item in the slot reserved for it; false when stopped meanwhile (not started). */
  adopt(item: A): boolean {
    this.reserved = Math.max(0, this.reserved - 1);
    if (this.stopped) {
      this.updateDemand();
      return false;
    }
    this.start(item);
    return true;
  }

  unreserve(): void {
    this.reserved = Math.max(0, this.reserved - 1);
    this.updateDemand();
    this.poke();
  }

  private rankOf(candidate: string): string {
    return this.spec.rankOf?.(candidate) ?? candidate;
  }

  private idOf(candidate: string): string {
    return this.spec.candidateId?.(candidate) ?? candidate;
  }

  private skips(id: string): boolean {
    return (
      this.inFlight.has(id) ||
      this.deferred.has(id) ||
      this.moved.has(id) ||
      this.spec.locks.has(id) ||
      (this.spec.unusable?.has(id) ?? false) ||
      (this.spec.busyElsewhere?.(id) ?? false)
    );
  }

  private readonly pokeFn = (): void => this.poke();

  /** Look again at the current candidates. */
  poke(): void {
    if (this.stopped) return;
    if (this.pumping) this.dirty = true;
    else void this.pump();
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.updateDemand();
    if (!paused) this.poke();
  }

  /** Forget deferred items (space may have changed) and look again. */
  reevaluate(): void {
    this.deferred.clear();
    this.poke();
  }

  /** Fires every in-flight item's AbortSignal (session lost). */
  abortAll(reason: string): void {
    for (const { controller } of this.inFlight.values()) controller.abort(new Error(reason));
  }

  /** Stops acquiring; waits for in-flight work up to `graceMs`, then aborts what is left. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.updateDemand();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const all = (): Promise<unknown> => Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([all(), timer])) === 'timeout') {
      this.abortAll('shutting down');
      await all();
    }
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.dirty = false;
        await this.fill();
      } while (this.dirty && !this.stopped);
    } catch (err) {
      this.spec.log.warn({ consumer: this.spec.name, err }, 'acquire failed; retrying');
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        this.poke();
      }, RETRY_AFTER_ERROR_MS);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Forgets the candidates at the head of the list that have left the folder: with 20,000
   * candidates held between two reads of a big folder, each acquire would otherwise walk past
   * every one already done (quadratic in the jobs done between reads).
   */
  private dropMovedHead(): void {
    let head = 0;
    while (head < this.candidates.length && this.moved.has(this.idOf(this.candidates[head]!))) head++;
    if (head >= MOVED_HEAD_DROP) this.candidates = this.candidates.slice(head);
  }

  private async fill(): Promise<void> {
    while (
      !this.stopped &&
      !this.paused &&
      this.inFlight.size + this.reserved < this.spec.limit &&
      this.candidates.length > 0
    ) {
      this.dropMovedHead();
      const item = await this.spec.acquire(
        this.candidates,
        (id) => this.skips(id),
        (id) => this.spec.locks.add(id, this.pokeFn),
        (id) => this.spec.unusable?.add(id, this.pokeFn),
      );
      if (!item) return;
      this.start(item);
    }
  }

  private start(item: A): void {
    const id = this.spec.idOf(item);
    const controller = new AbortController();
    const done = this.spec
      .work(item, controller.signal)
      .then((outcome) => {
        if (outcome === 'defer') this.deferred.add(id);
        if (outcome === 'moved') this.moved.add(id);
      })
      .catch((err: unknown) =>
        this.spec.log.error({ consumer: this.spec.name, item: id, err }, 'work failed'),
      )
      .finally(() => {
        this.inFlight.delete(id);
        this.updateDemand();
        this.poke();
      });
    this.inFlight.set(id, { controller, done });
    this.updateDemand();
  }
}
