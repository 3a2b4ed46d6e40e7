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
   * items that could not be used (both skipped until their watch fires). Several acquisitions
   * run at once: `skip(id)` answering false claims `id` for this one (the others pass it by), so
   * it is asked right before the item is tried, never for a whole list ahead.
   */
  acquire(
    candidates: readonly string[],
    skip: (id: string) => boolean,
    onLocked: (id: string) => void,
    onUnusable: (id: string) => void,
    onWaiting: (id: string, ms: number) => void,
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
  /**
   * Lets go of a handed-over item that waited for a slot too long, or of an item this consumer
   * will not run (stopped or paused meanwhile): its lock is released so any process may take it.
   * A consumer without it takes no hand-overs.
   */
  giveBack?(item: A): void;
  /**
   * How many more items the consumer this one hands its items over to can take (see
   * `handOverRoom`): acquisitions stop while those under way and those running would fill it, so
   * this process does not take items it would have to let go again at once (and leaves them to
   * processes with room). Absent: no such bound.
   */
  intakeRoom?(): number;
  /** Called when this consumer's `handOverRoom` may have grown (an item finished or was given back). */
  roomChanged?(): void;
  log: Logger;
}

const RETRY_AFTER_ERROR_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * How long a handed-over item may wait for a slot with its lock kept: long enough for the next
 * slot of a busy pipeline, short enough that another process with free slots takes it when this
 * one's steps are slow (it sees the ref locked until then).
 */
export const HAND_OVER_WAIT_MS = 1000;
/** Moved candidates at the head of the list that are dropped at once (a copy of the rest each time). */
const MOVED_HEAD_DROP = 64;

/**
 * Pulls work for one state: woken by the streams (`offer`), it acquires items up to its
 * concurrency limit and runs them; it never polls. Acquisitions run side by side, one per free
 * slot (an acquisition is a few round trips: one at a time, they bounded the whole engine's
 * intake); each claims the candidate it tries, so no two try the same. Items locked by other
 * sessions are watched, so a crashed owner's work is picked up when its ephemeral lock disappears.
 */
export class Consumer<A> {
  private candidates: readonly string[] = [];
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly deferred = new Set<string>();
  /** Items waiting for a time of their own (see waitFor): not forgotten by reevaluate. */
  private readonly timed = new Set<string>();
  /** Timers that look at a deferred item again (see lookAgain). */
  private readonly lookTimers = new Map<string, NodeJS.Timeout>();
  /** Items that left this folder, with when this consumer learnt it (performance.now()). */
  private readonly moved = new Map<string, number>();
  /** Places promised to items handed over from another consumer of this process. */
  private reserved = 0;
  /**
   * Handed-over items waiting for a slot (this process holds their locks), oldest first, each
   * with the timer that gives it back. At most `limit` wait: a full pipeline stage then takes the
   * next item from its predecessor without a lock released and taken again.
   */
  private readonly waiting = new Map<
    string,
    { item: A; timer: NodeJS.Timeout; carried: AbortSignal | undefined }
  >();
  /** Acquisitions under way (each holds a slot until it ends) and the candidates they try. */
  private acquiring = 0;
  private readonly acquisitions = new Set<Promise<void>>();
  private readonly claimed = new Set<string>();
  /** Pokes so far: an acquisition that ends empty-handed looks again if one came after it began. */
  private pokes = 0;
  private paused = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;

  private readonly wants = new BehaviorSubject(true);
  /**
   * Whether this consumer could take an item now (running, not paused, a slot free): its
   * folder need not be re-read while it could not.
   */
  readonly demand$: Observable<boolean> = this.wants.pipe(distinctUntilChanged());

  constructor(private readonly spec: ConsumerSpec<A>) {}

  private updateDemand(): void {
    this.wants.next(!this.stopped && !this.paused && this.promised() < this.spec.limit);
  }

  /** Items running or handed over to this consumer (promised, or waiting for a slot). */
  private promised(): number {
    return this.inFlight.size + this.reserved + this.waiting.size;
  }

  /** Slots neither running, promised to a hand-over, nor acquiring. */
  private freeSlots(): number {
    return this.spec.limit - this.promised() - this.acquiring;
  }

  get name(): string {
    return this.spec.name;
  }
  get running(): number {
    return this.inFlight.size;
  }

  /**
   * The current candidates (e.g. the children of the state folder), as ZooKeeper listed them at
   * `listedAt` (performance.now(); default now); wakes the consumer. What left the folder before
   * then is not in them and is forgotten; what left since may still be named (a folder of 100,000
   * is answered and taken in over several turns while jobs move on) and is still not tried: at
   * 100,000 jobs waiting, forgetting it tried 3,000 stale refs in 8,000 jobs, five requests each.
   */
  offer(candidates: readonly string[], listedAt = performance.now()): void {
    this.candidates = candidates;
    for (const [id, at] of this.moved) if (at < listedAt) this.moved.delete(id);
    this.poke();
  }

  /**
   * `id` has left this consumer's folder by another way than its work (failed as incomplete): it
   * is not tried again from the current candidates, which may still name it.
   */
  left(id: string): void {
    this.moved.set(id, performance.now());
  }

  /**
   * Places left for hand-overs: slots and waiting places neither promised nor acquiring. Unbounded
   * while paused or stopped (it takes none then: its items wait in its folder, as they would).
   */
  handOverRoom(): number {
    if (this.stopped || this.paused || !this.spec.giveBack) return Number.POSITIVE_INFINITY;
    return 2 * this.spec.limit - this.promised() - this.acquiring;
  }

  /** Starts what the room downstream allows now (see `intakeRoom`); unlike poke, not a change of candidates. */
  refill(): void {
    if (!this.stopped) this.fill();
  }

  /** The items this consumer holds now: claimed by an acquisition under way, running, or waiting for a slot. */
  holding(): string[] {
    return [...this.claimed, ...this.inFlight.keys(), ...this.waiting.keys()];
  }

  /** True while this consumer works on `id`, or holds it waiting for a slot. */
  holds(id: string): boolean {
    return this.inFlight.has(id) || this.waiting.has(id);
  }

  /**
   * Promises a place to an item this process will hand over (it holds the lock already): a slot,
   * or a wait for one (see `waiting`), when no waiting candidate ranks before `candidate` (see
   * `rankOf`): a handed-over item never jumps a better-ranked one. Follow with adopt or unreserve.
   */
  reserve(candidate: string): boolean {
    if (!this.spec.giveBack || this.stopped || this.paused) return false;
    if (this.promised() + this.acquiring >= 2 * this.spec.limit) return false;
    const first = this.candidates.find((c) => !this.skips(this.idOf(c)));
    if (first !== undefined && this.rankOf(first) < this.rankOf(candidate)) return false;
    this.reserved++;
    this.updateDemand();
    return true;
  }

  /**
   * Starts a handed-over item, or keeps it waiting for a slot; when stopped or paused meanwhile,
   * gives it back (`giveBack`) and answers false.
   */
  adopt(item: A, carried?: AbortSignal): boolean {
    this.reserved = Math.max(0, this.reserved - 1);
    if (this.stopped || this.paused) {
      this.updateDemand();
      this.spec.giveBack?.(item);
      return false;
    }
    if (this.waiting.size === 0 && this.inFlight.size + this.acquiring < this.spec.limit)
      this.start(item, carried);
    else {
      this.wait(item, carried);
      this.fill();
    }
    return true;
  }

  private wait(item: A, carried?: AbortSignal): void {
    const id = this.spec.idOf(item);
    const timer = setTimeout(() => {
      this.waiting.delete(id);
      this.spec.giveBack?.(item);
      this.updateDemand();
      this.poke();
      this.spec.roomChanged?.();
    }, HAND_OVER_WAIT_MS);
    this.waiting.set(id, { item, timer, carried });
    this.updateDemand();
  }

  /** Lets go of every item waiting for a slot (stopping, pausing, or the session lost). */
  private giveBackWaiting(): void {
    for (const { item, timer } of this.waiting.values()) {
      clearTimeout(timer);
      this.spec.giveBack?.(item);
    }
    this.waiting.clear();
    this.updateDemand();
  }

  unreserve(): void {
    this.reserved = Math.max(0, this.reserved - 1);
    this.updateDemand();
    this.poke();
    this.spec.roomChanged?.();
  }

  private rankOf(candidate: string): string {
    return this.spec.rankOf?.(candidate) ?? candidate;
  }

  private idOf(candidate: string): string {
    return this.spec.candidateId?.(candidate) ?? candidate;
  }

  private skips(id: string): boolean {
    if (
      this.inFlight.has(id) ||
      this.claimed.has(id) ||
      this.deferred.has(id) ||
      this.timed.has(id) ||
      this.moved.has(id)
    )
      return true;
    // Waiting on a watch another consumer armed (the item moved here meanwhile): this one is
    // poked too when it fires, or it would not look again until its folder next changes.
    for (const waiting of [this.spec.locks, this.spec.unusable]) {
      if (!waiting?.has(id)) continue;
      waiting.add(id, this.pokeFn);
      return true;
    }
    return this.spec.busyElsewhere?.(id) ?? false;
  }

  private readonly pokeFn = (): void => this.poke();

  /** Look again at the current candidates. */
  poke(): void {
    if (this.stopped) return;
    this.pokes++;
    this.fill();
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    if (paused) this.giveBackWaiting();
    this.updateDemand();
    if (!paused) this.poke();
  }

  /**
   * A deferred item is looked at again after `ms` (a wait whose limit falls due then), whatever
   * the re-evaluation interval. One timer per item: a later call replaces it.
   */
  lookAgain(id: string, ms: number): void {
    clearTimeout(this.lookTimers.get(id));
    // setTimeout's longest delay is 2^31 - 1 ms (24.8 days); a longer wait is looked at then.
    const timer = setTimeout(
      () => {
        this.lookTimers.delete(id);
        this.deferred.delete(id);
        this.timed.delete(id);
        this.poke();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    timer.unref();
    this.lookTimers.set(id, timer);
  }

  /**
   * `id` waits `ms` before it may be taken (its step's next attempt): passed by until then, or
   * until `lookAgain` says otherwise (its wait changed). Not forgotten by `reevaluate`.
   */
  waitFor(id: string, ms: number): void {
    this.timed.add(id);
    this.lookAgain(id, ms);
  }

  /** Forget deferred items (space may have changed) and look again. */
  reevaluate(): void {
    this.deferred.clear();
    this.poke();
  }

  /** Fires every in-flight item's AbortSignal (session lost). */
  abortAll(reason: string): void {
    this.giveBackWaiting();
    for (const { controller } of this.inFlight.values()) controller.abort(new Error(reason));
  }

  /** Stops acquiring; waits for in-flight work up to `graceMs`, then aborts what is left. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.giveBackWaiting();
    for (const timer of this.lookTimers.values()) clearTimeout(timer);
    this.lookTimers.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // An acquisition that ends with an item starts it: wait for those first.
    await Promise.allSettled([...this.acquisitions]);
    const all = (): Promise<unknown> => Promise.allSettled([...this.inFlight.values()].map((w) => w.done));
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([all(), timer])) === 'timeout') {
      this.abortAll('shutting down');
      await all();
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

  /** Starts waiting hand-overs, then one acquisition per free slot while there are candidates. */
  private fill(): void {
    for (const [id, { item, timer, carried }] of this.waiting) {
      if (this.stopped || this.paused || this.inFlight.size + this.acquiring >= this.spec.limit) break;
      clearTimeout(timer);
      this.waiting.delete(id);
      this.start(item, carried);
    }
    while (!this.stopped && !this.paused && this.freeSlots() > 0 && this.candidates.length > 0) {
      if (this.spec.intakeRoom && this.acquiring + this.inFlight.size >= this.spec.intakeRoom()) break;
      this.dropMovedHead();
      this.acquiring++;
      const acquisition = this.acquireOne();
      this.acquisitions.add(acquisition);
      void acquisition.finally(() => this.acquisitions.delete(acquisition));
    }
  }

  /**
   * One acquisition over the current candidates (never rejects). An item taken starts, and the
   * slots are filled again; one that ends empty-handed looks again only if poked meanwhile (new
   * candidates, a lock let go), so a list with nothing to take is not walked in a loop.
   */
  private async acquireOne(): Promise<void> {
    const pokes = this.pokes;
    const claims: string[] = [];
    const claim = (id: string): boolean => {
      if (this.skips(id)) return true;
      this.claimed.add(id);
      claims.push(id);
      return false;
    };
    let item: A | undefined;
    try {
      item = await this.spec.acquire(
        this.candidates,
        claim,
        (id) => this.spec.locks.add(id, this.pokeFn),
        (id) => this.spec.unusable?.add(id, this.pokeFn),
        (id, ms) => this.waitFor(id, ms),
      );
    } catch (err) {
      this.spec.log.warn({ consumer: this.spec.name, err }, 'acquire failed; retrying');
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        this.poke();
      }, RETRY_AFTER_ERROR_MS);
      return;
    } finally {
      for (const id of claims) this.claimed.delete(id);
      this.acquiring--;
    }
    // Paused while it was under way: taken nothing (a paused queue acquires nothing).
    if (item !== undefined && this.paused && this.spec.giveBack) this.spec.giveBack(item);
    else if (item !== undefined) this.start(item);
    else if (this.pokes === pokes) return;
    this.fill();
  }

  /**
   * Runs `item`'s work under an AbortController of this consumer's kind: the one of `carried` (the
   * signal of the step that handed the item over, while not aborted), else a new one. Carried
   * along a job's hand-overs, one controller serves all its steps in this process: Node makes an
   * AbortSignal dearly (an EventTarget), and a new one a step was about 7 % of a no-op job's CPU.
   * Its aborts are the same: a lost session aborts every consumer's steps, and a step that hands
   * its item over has finished running (its commit's bookkeeping is left) when the next begins.
   */
  private start(item: A, carried?: AbortSignal): void {
    const id = this.spec.idOf(item);
    const controller = reusable(carried) ?? newController();
    const done = this.spec
      .work(item, controller.signal)
      .then((outcome) => {
        if (outcome === 'defer') this.deferred.add(id);
        if (outcome === 'moved') this.moved.set(id, performance.now());
      })
      .catch((err: unknown) =>
        this.spec.log.error({ consumer: this.spec.name, item: id, err }, 'work failed'),
      )
      .finally(() => {
        this.inFlight.delete(id);
        this.updateDemand();
        this.poke();
        this.spec.roomChanged?.();
      });
    this.inFlight.set(id, { controller, done });
    this.updateDemand();
  }
}

/** The controllers consumers made, by their signals: a handed-over item's next step reuses its own. */
const controllers = new WeakMap<AbortSignal, AbortController>();

function newController(): AbortController {
  const controller = new AbortController();
  controllers.set(controller.signal, controller);
  return controller;
}

/** The controller of `signal` when a consumer made it and it has not aborted. */
function reusable(signal: AbortSignal | undefined): AbortController | undefined {
  if (!signal || signal.aborted) return undefined;
  return controllers.get(signal);
}
