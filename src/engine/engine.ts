import { interval, type Subscription } from 'rxjs';
import type { AccessQueue } from '../../machines/index.js';
import { acquireAccess, type AcquiredAccess } from '../queue/access/requests.js';
import { accessItem } from './items/access.js';
import { AccessStatusWatch } from './access-status-watch.js';
import type { AccessSteps } from '../steps/contracts.js';
import { acquireBatch, type AcquiredBatch, type BatchWork } from '../queue/batches/acquire.js';
import { acquireJob, type AcquiredJob } from '../queue/jobs/acquire.js';
import {
  accessQueuePath,
  batchPath,
  jobPath,
  jobStateFolder,
  parseRefName,
  refRank,
} from '../queue/tree/paths.js';
import { readFirstRefs } from '../queue/jobs/refs.js';
import { ensureQueueTree } from '../queue/tree/init.js';
import { isQueuePaused } from '../queue/locks/queue-pause.js';
import { candidatesPerRead, children$, collectionHolds$, jobWork$, queuePaused$ } from '../streams/index.js';
import { batchItem } from './items/batch.js';
import { BATCH_WORK, batchWorkNow, watchBatches } from './batch-watch.js';
export { BATCH_WORK };
import { Consumer } from './consumer.js';
import { WaitingItems, type Backoff } from './waiting-items.js';
import { ProblemLog } from './problem-log.js';
import { releaseEventually, type HeldLock } from '../queue/locks/lock.js';
import { StallGuard } from './stall-guard.js';
import { StepIsolation } from './step-isolation.js';
import type { EngineDeps, HandOver } from './deps.js';
import { jobItem } from './items/job.js';
import { runItem, type HeldItem } from './items/item-runner.js';
import type { ConsumerSpec } from './consumer.js';
import type { QueueError } from '../queue/tree/errors.js';
import { IncompleteJobs } from './incomplete-jobs.js';
import { WaitingJobNodes } from './waiting-job-nodes.js';
import { EMPTY_RETRY_POLICY, retryPolicySchema, type RetryPolicy } from './retry/policy.js';
import { RETRY_POLICY, SHARES_POLICY } from '../queue/policies/store.js';
import { Shares, type ShareUse } from './shares/shares.js';
import { DEFAULT_SHARES_POLICY, sharesPolicySchema } from './shares/policy.js';
import { policy$ } from '../streams/policy.js';
import { failIncompleteJob } from '../queue/jobs/incomplete.js';
import { isZkError } from '../zk/index.js';

export const ACCESS_QUEUES: readonly AccessQueue[] = ['small', 'large'];

export interface EngineOptions {
  /**
   * Job states this process consumes (default: the lifecycle's servable states, its initial
   * state and every working state); e.g. only `recording` for an inventory service.
   */
  jobStates?: readonly string[];
  /** Batch work this process does (default all). */
  batchWork?: readonly BatchWork[];
  /** Items worked on at once, per state or batch work (default DEFAULT_JOB_LIMIT, DEFAULT_BATCH_LIMIT). */
  limits?: Partial<Record<string, number>>;
  /**
   * Takes new jobs fairly across share keys (default true; src/engine/shares): false takes them in
   * priority and id order alone (the benchmark measures what fairness costs).
   */
  fairShares?: boolean;
  /** Access queues this process consumes (default both, when access steps are given). */
  accessQueues?: readonly AccessQueue[];
  /** Safety-net sweep that re-reads every folder; 0 turns it off (default 60 s). */
  sweepIntervalMs?: number;
  /**
   * Jobs in a state whose step may leave them there (provisioning) are evaluated again at least
   * this often (default 30 s), and whenever a job of this process completes or fails (space may
   * have been freed).
   */
  provisioningIntervalMs?: number;
  /**
   * A job this long without a node it needs (status, bid, configuration) fails, with a message
   * naming the node (default 5 min; 0: it waits, watched, for someone to write it).
   */
  incompleteJobFailMs?: number;
}

/** Another tool writes a job's nodes within milliseconds; five minutes without one is not that. */
const DEFAULT_INCOMPLETE_JOB_FAIL_MS = 5 * 60_000;

/**
 * Jobs a consumer works on at once, per job state (`--limit`). Eight, not four: with four a stage
 * of a busy pipeline was full so often that jobs were released mid-pipeline and acquired again
 * (2.5 locks a one-file object; 2.1 with eight), and each turn's group commit carried fewer jobs;
 * with eight, 1.28 ZooKeeper requests a no-op job instead of 1.85 and less CPU a job
 * (docs/performance.md, "The fourth session"). Sixteen was no better.
 */
export const DEFAULT_JOB_LIMIT = 8;
/** Batches a consumer works on at once, per batch work (`--limit`). */
export const DEFAULT_BATCH_LIMIT = 2;

/** What an acquisition is told about the candidates it passes by (see acquireJob). */
interface AcquireHooks {
  candidates: readonly string[];
  skip: (id: string) => boolean;
  onLocked: (id: string) => void;
  onInvalid: (id: string, error: QueueError) => void;
  onLeft: (id: string, reason: string) => void;
  onWaiting: (id: string, ms: number) => void;
}

/** One kind of item a consumer takes: what differs between jobs, batches and access requests. */
interface ConsumedItem<A> extends Omit<ConsumerSpec<A>, 'acquire' | 'log' | 'giveBack' | 'unusable'> {
  acquire: (hooks: AcquireHooks) => Promise<A | undefined>;
  /** How the problem log names an item: its log fields and a phrase (`left`: one left to another service). */
  labels: (id: string) => { fields: Record<string, unknown>; what: string; left?: string };
  /** Also told of an item that cannot be used (jobs: one missing a node is timed). */
  invalid?: (id: string, error: QueueError) => void;
  /** Also told of an item that waits for a time of its own (jobs: their step's next attempt). */
  waiting?: (id: string, ms: number) => void;
  /** The metric label of lock contention, when it is counted. */
  contention?: string;
  unusable: WaitingItems;
}

/**
 * An item that could not be used is looked at again when its nodes change, and otherwise after
 * 5 s, 10 s, 20 s… up to 5 min: an operator's fix is seen at once, a bad item nobody mends costs a
 * handful of requests every five minutes.
 */
const UNUSABLE_BACKOFF: Backoff = { firstMs: 5000, maxMs: 5 * 60_000 };

/**
 * The runtime: one consumer per served job state and batch phase, woken by watcher streams,
 * each running the state's step through the machine and committing the result through the
 * store. Session loss aborts every in-flight step; stop() drains gracefully.
 */
export class Engine {
  private readonly consumers = new Map<string, Consumer<AcquiredJob> | Consumer<AcquiredBatch>>();
  /** Where the initial state's jobs went last (its consumer's intake is bounded by that state's room). */
  private intakeTarget: string | undefined;
  private readonly accessConsumers = new Map<AccessQueue, Consumer<AcquiredAccess>>();
  /** Each access queue's unfinished requests, their status watched (a requeue changes nothing else). */
  private readonly accessWatches = new Map<AccessQueue, AccessStatusWatch>();
  private readonly subscriptions: Subscription[] = [];
  /** The gate that runs a suspect job's step alone (see StepIsolation). */
  private readonly isolation = new StepIsolation();
  private ingestPaused = false;
  private isolating = false;
  private holds: ReadonlySet<string> = new Set();
  private stallGuard: StallGuard | undefined;
  private sessionId: string | undefined;
  private readonly waitingSets: WaitingItems[] = [];
  /** Jobs locked elsewhere, shared by every job consumer: a job keeps its lock from state to state. */
  private readonly jobLocks = this.lockedElsewhere((jid) => `${jobPath(jid)}/lock`);
  /** Jobs that could not be used (nodes missing or unreadable), read again when their nodes change. */
  private readonly unusableJobs = this.unusable(jobPath);
  /** Batches locked elsewhere and batches that could not be used, shared by the batch consumers. */
  private readonly batchLocks = this.lockedElsewhere((bid) => `${batchPath(bid)}/lock`);
  private readonly unusableBatches = this.unusable(batchPath);
  private readonly problems: ProblemLog;
  /** Jobs without a node they need, failed once they have stayed so (see IncompleteJobs). */
  private readonly incompleteJobs: IncompleteJobs;
  /** Jobs their step left waiting (provisioning), looked at again at once when a node they need is lost. */
  private waitingNodes: WaitingJobNodes | undefined;
  /** Fair shares of the intake, when this engine serves the initial state. */
  private shares: Shares | undefined;
  /** The retry policy in force (`/policies/retry`, watched). */
  private retryPolicy: RetryPolicy = EMPTY_RETRY_POLICY;

  constructor(
    private readonly deps: Omit<EngineDeps, 'heldCollections'>,
    private readonly options: EngineOptions = {},
  ) {
    const { lifecycle } = deps.queue;
    const unknown = (options.jobStates ?? []).filter((state) => !lifecycle.servableStates.includes(state));
    if (unknown.length > 0)
      throw new Error(
        `cannot consume job state ${unknown.join(', ')}: servable states are ${lifecycle.servableStates.join(', ')}`,
      );
    const missing = lifecycle.steps.filter((step) => deps.jobSteps.steps[step] === undefined);
    if (missing.length > 0) throw new Error(`no implementation for job step ${missing.join(', ')}`);
    this.problems = new ProblemLog(deps.log);
    this.incompleteJobs = new IncompleteJobs(
      options.incompleteJobFailMs ?? DEFAULT_INCOMPLETE_JOB_FAIL_MS,
      (jid, state, waitedMs) => this.failIncomplete(jid, state, waitedMs),
    );
  }

  /** Pauses the consumers while the ingest queue is held; the job consumers also while a suspect runs alone. */
  private applyPause(): void {
    for (const [name, consumer] of this.consumers)
      consumer.setPaused(this.ingestPaused || (this.isolating && !name.startsWith('batch:')));
  }

  /** States and batch work this engine serves (for health and metrics). */
  /** The id this engine registers under `/engines` and records in each step attempt, when given. */
  get id(): string | undefined {
    return this.deps.engineId;
  }

  get served(): { jobStates: readonly string[]; batchWork: readonly BatchWork[] } {
    return {
      jobStates: this.options.jobStates ?? this.deps.queue.lifecycle.servableStates,
      batchWork: this.options.batchWork ?? BATCH_WORK,
    };
  }

  /** In-flight items per consumer. */
  running(): Record<string, number> {
    return Object.fromEntries([...this.consumers].map(([name, c]) => [name, c.running]));
  }

  async start(): Promise<void> {
    const { zk } = this.deps.queue;
    await ensureQueueTree(zk, this.deps.queue.lifecycle);
    const deps: EngineDeps = {
      ...this.deps,
      heldCollections: () => this.holds,
      handOver: (state, refName) => this.handOver(state, refName),
      beforeStep: (lock) => this.stallGuard?.beforeStep(lock) ?? Promise.resolve(),
      // A stall shorter than a third of the session timeout cannot have cost the session (the
      // server hears nothing for a whole timeout before it ends one; pings go every third).
      stalledSince: (at) => this.stallGuard?.stalledSince(at, zk.sessionTimeoutMs / 3) ?? true,
      isolation: this.isolation,
      lookAgain: (state, jid, ms) => this.consumers.get(state)?.lookAgain(jid, ms),
      retryPolicy: () => this.retryPolicy,
    };
    this.stallGuard = new StallGuard(zk);
    this.waitingNodes = new WaitingJobNodes(zk, (jid, state) => this.consumers.get(state)?.lookAgain(jid, 0));
    // Merritt's consumers check the queue hold before every acquire; these are paused from the
    // start, not from the pause stream's first answer (a job could be taken in between).
    const ingestPaused = await isQueuePaused(this.deps.queue, 'ingest');
    this.subscriptions.push(collectionHolds$(zk).subscribe((holds) => (this.holds = holds)));
    this.subscriptions.push(
      policy$(zk, RETRY_POLICY, retryPolicySchema, EMPTY_RETRY_POLICY, (problem) =>
        this.deps.log.warn({ path: RETRY_POLICY, problem }, 'retry policy unreadable; the defaults apply'),
      ).subscribe(({ value }) => (this.retryPolicy = value)),
    );
    for (const state of this.served.jobStates) this.startJobConsumer(deps, state);
    for (const work of this.served.batchWork)
      this.consumers.set(`batch:${work}`, this.batchConsumer(deps, work));
    this.ingestPaused = ingestPaused;
    this.applyPause();
    if (this.served.batchWork.length > 0) {
      this.subscriptions.push(
        watchBatches(zk, (work, bids) =>
          (this.consumers.get(`batch:${work}`) as Consumer<AcquiredBatch> | undefined)?.offer(bids),
        ),
      );
    }
    this.subscriptions.push(
      queuePaused$(zk, 'ingest').subscribe((paused) => {
        this.deps.log.info({ paused }, paused ? 'ingest queue paused' : 'ingest queue running');
        this.ingestPaused = paused;
        this.applyPause();
      }),
      // A suspect job runs alone (see StepIsolation): the job consumers take nothing meanwhile.
      this.isolation.isolating$.subscribe((isolating) => {
        if (isolating) this.deps.log.warn('a suspect job runs alone: job consumers paused until it is done');
        this.isolating = isolating;
        this.applyPause();
      }),
      zk.session$.subscribe((event) => {
        if (event.state === 'suspended' || event.state === 'expired') {
          this.deps.log.warn({ state: event.state }, 'session may be lost: aborting in-flight steps');
          for (const consumer of this.allConsumers()) consumer.abortAll(`session ${event.state}`);
        }
        // A new session: the lock watches of the old one will never fire.
        if (event.state === 'connected' && event.sessionId !== this.sessionId) {
          if (this.sessionId !== undefined) this.forgetWaiting(true);
          this.sessionId = event.sessionId;
        }
      }),
    );
    if (this.deps.accessSteps) {
      for (const queue of this.options.accessQueues ?? ACCESS_QUEUES)
        this.startAccessConsumer(deps, this.deps.accessSteps, queue);
    }
    this.startTimers();
    this.deps.log.info({ ...this.served, access: [...this.accessConsumers.keys()] }, 'engine started');
  }

  /** Stops acquiring, lets in-flight steps finish up to `graceMs`, aborts the rest (their locks are released). */
  async stop(graceMs = 10_000): Promise<void> {
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
    for (const watch of this.accessWatches.values()) watch.stop();
    this.stallGuard?.stop();
    this.waitingNodes?.stop();
    this.incompleteJobs.stop();
    for (const items of this.waitingSets) items.stop();
    await Promise.all(this.allConsumers().map((c) => c.stop(graceMs)));
    this.deps.log.info('engine stopped');
  }

  /**
   * The one consumer factory: every kind of item is acquired, reported when unusable or left to
   * another service, waited on when locked elsewhere, and run by the item runner the same way.
   * `item` says what differs: how it is acquired, how its problems are labelled, what runs.
   */
  private consumerOf<A extends HeldItem>(deps: EngineDeps, item: ConsumedItem<A>): Consumer<A> {
    const { acquire, labels, invalid, waiting, work, contention, ...spec } = item;
    return new Consumer<A>({
      ...spec,
      log: deps.log,
      acquire: (candidates, skip, onLocked, onUnusable, onWaiting) =>
        acquire({
          candidates,
          skip,
          onWaiting: (id, ms) => {
            waiting?.(id, ms);
            onWaiting(id, ms);
          },
          onLocked: (id) => {
            if (contention !== undefined) deps.metrics?.lockContention(contention);
            onLocked(id);
          },
          onInvalid: (id, error) => {
            const { fields, what } = labels(id);
            this.problems.report(fields, id, error, what);
            invalid?.(id, error);
            onUnusable(id);
          },
          // Read again only when one of its nodes changes (the service it is left to takes it, or it is mended).
          onLeft: (id, reason) => {
            const { fields, what, left } = labels(id);
            this.problems.left(fields, id, reason, left ?? what);
            onUnusable(id);
          },
        }),
      giveBack: this.release,
      work: (acquired, signal) => {
        const id = spec.idOf(acquired);
        this.problems.clear(id);
        spec.unusable.clear(id);
        return work(acquired, signal);
      },
    });
  }

  private startJobConsumer(deps: EngineDeps, state: string): void {
    const { lifecycle } = deps.queue;
    const consumer = this.consumerOf<AcquiredJob>(deps, {
      name: state,
      limit: this.options.limits?.[state] ?? DEFAULT_JOB_LIMIT,
      contention: state,
      acquire: (hooks) => acquireJob(deps.queue, state, hooks),
      labels: (jid) => ({ fields: { jobId: jid, state }, what: `job ${jid}` }),
      invalid: (jid, error) => {
        if (error.incomplete) this.incompleteJobs.note(jid, state);
      },
      // Waiting for its step's next attempt (its retry record): watched, so a "retry now" is seen.
      waiting: (jid) => this.waitingNodes?.watch(jid, state),
      idOf: (acquired) => acquired.job.jobId,
      candidateId: (name) => parseRefName(name)?.jid ?? name,
      rankOf: refRank,
      busyElsewhere: (jid) => this.jobInHand(jid),
      // New jobs are taken while the state they go to has room here (see ConsumerSpec.intakeRoom).
      intakeRoom:
        state === lifecycle.initial
          ? () => this.consumers.get(this.intakeTarget ?? '')?.handOverRoom() ?? Number.POSITIVE_INFINITY
          : undefined,
      roomChanged: () => this.consumers.get(lifecycle.initial)?.refill(),
      work: async (acquired, signal) => {
        this.incompleteJobs.clear(acquired.job.jobId);
        this.waitingNodes?.taken(acquired.job.jobId);
        const to = (await runItem(deps, jobItem, acquired, signal))?.status;
        if (!lifecycle.isWorking(state)) {
          if (to !== undefined) this.intakeTarget = to;
          if (to !== undefined && lifecycle.isWorking(to))
            this.shares?.taken(acquired.job.jobId, acquired.job.configuration);
          return to === undefined ? undefined : 'moved';
        }
        // Space may have been freed when a job of this process finishes (others: the timer).
        if (to !== undefined && !lifecycle.isWorking(to) && to !== state) this.reevaluateWaiting();
        if (to === undefined || !lifecycle.isWorking(to)) this.shares?.left(acquired.job.jobId);
        if (to === state) {
          this.waitingNodes?.watch(acquired.job.jobId, state);
          return 'defer';
        }
        return to === undefined ? undefined : 'moved';
      },
      locks: this.jobLocks,
      unusable: this.unusableJobs,
    });
    this.consumers.set(state, consumer);
    // The intake's reads are arranged fairly across share keys before they are offered.
    const shares =
      state === lifecycle.initial && this.options.fairShares !== false
        ? this.startShares(deps, consumer)
        : undefined;
    this.subscriptions.push(
      jobWork$(deps.queue.zk, state, {
        demand: consumer.demand$,
        keep: shares?.keep,
        quietAtOnce: state === lifecycle.initial,
      }).subscribe((listing) => {
        if (shares) shares.listed(listing);
        else {
          consumer.offer(listing.refs, listing.readAt);
          if (lifecycle.isWorking(state)) this.shares?.working(state, listing.refs);
        }
      }),
    );
  }

  /**
   * Fair shares of the intake (src/engine/shares), under `/policies/shares` (watched). With a cap,
   * the jobs at work are counted in every working state's folder, each read at every change (the
   * consumers' own reads wait while they are full): a cost paid only once a cap is set.
   */
  private startShares(deps: EngineDeps, intake: Consumer<AcquiredJob>): Shares {
    const { zk, lifecycle } = deps.queue;
    const shares = new Shares(
      zk,
      (listing) => intake.offer(listing.refs, listing.readAt),
      () => intake.holding(),
    );
    this.shares = shares;
    let counting = false;
    this.subscriptions.push(
      policy$(zk, SHARES_POLICY, sharesPolicySchema, DEFAULT_SHARES_POLICY, (problem) =>
        this.deps.log.warn({ path: SHARES_POLICY, problem }, 'shares policy unreadable; the defaults apply'),
      ).subscribe(({ value }) => {
        shares.setPolicy(value);
        if (counting || !shares.capped) return;
        // Read whatever the consumers want: a full consumer does not re-read its folder.
        counting = true;
        for (const state of lifecycle.workingStates)
          this.subscriptions.push(
            jobWork$(zk, state).subscribe((listing) => shares.working(state, listing.refs)),
          );
      }),
    );
    return shares;
  }

  /** Each share key's jobs waiting and at work, with its weight and cap (empty when this engine takes no new jobs). */
  shareUse(): ShareUse[] {
    return this.shares?.use() ?? [];
  }

  private startAccessConsumer(deps: EngineDeps, steps: AccessSteps, queue: AccessQueue): void {
    const item = accessItem(steps);
    const consumer = this.consumerOf<AcquiredAccess>(deps, {
      name: `access ${queue}`,
      limit: 2,
      acquire: (hooks) => acquireAccess(deps.queue, queue, hooks),
      labels: (qid) => ({ fields: { accessId: qid, queue }, what: `access request ${qid}` }),
      idOf: (acquired) => acquired.request.accessId,
      work: async (acquired, signal) => {
        const qid = acquired.request.accessId;
        this.accessWatches.get(queue)?.taking(qid);
        try {
          await runItem(deps, item, acquired, signal);
        } finally {
          this.accessWatches.get(queue)?.settled(qid);
        }
      },
      locks: this.lockedElsewhere((qid) => `${accessQueuePath(queue)}/${qid}/lock`),
      unusable: this.unusable((qid) => `${accessQueuePath(queue)}/${qid}`),
    });
    this.accessConsumers.set(queue, consumer);
    const watch = new AccessStatusWatch(
      deps.queue.zk,
      queue,
      () => consumer.offer(watch.candidates()),
      deps.log,
    );
    this.accessWatches.set(queue, watch);
    const lockName = queue === 'small' ? 'accessSmall' : 'accessLarge';
    this.subscriptions.push(
      children$(deps.queue.zk, accessQueuePath(queue)).subscribe((names) =>
        consumer.offer(watch.follow(names)),
      ),
      queuePaused$(deps.queue.zk, lockName).subscribe((paused) => consumer.setPaused(paused)),
    );
  }

  private batchConsumer(deps: EngineDeps, work: BatchWork): Consumer<AcquiredBatch> {
    const item = batchItem(work);
    return this.consumerOf<AcquiredBatch>(deps, {
      name: `batch ${work}`,
      limit: this.options.limits?.[work] ?? DEFAULT_BATCH_LIMIT,
      contention: `batch ${work}`,
      acquire: (hooks) => acquireBatch(deps.queue, work, hooks),
      labels: (bid) => ({ fields: { batchId: bid }, what: `batch ${bid}`, left: `pending batch ${bid}` }),
      idOf: (acquired) => acquired.batch.batchId,
      work: async (acquired, signal) => void (await runItem(deps, item, acquired, signal)),
      locks: this.batchLocks,
      unusable: this.unusableBatches,
    });
  }

  /** Lets go of an item's lock (an item a consumer gives back: see ConsumerSpec.giveBack). */
  private readonly release = (item: { lock: HeldLock }): void =>
    void releaseEventually(this.deps.queue, item.lock);

  /** True when a job consumer of this process works on `jid` (it holds the lock). */
  private jobInHand(jid: string): boolean {
    for (const state of this.served.jobStates) if (this.consumers.get(state)?.holds(jid)) return true;
    return false;
  }

  /** A slot in this process's consumer of `state`, for a job whose commit keeps its lock. */
  private handOver(state: string, refName: string): HandOver | undefined {
    const consumer = this.consumers.get(state) as Consumer<AcquiredJob> | undefined;
    if (!consumer?.reserve(refName)) return undefined;
    return {
      // Stopped or paused between the reservation and the commit: the consumer gives it back.
      accept: (job, signal) => void consumer.adopt(job, signal),
      cancel: () => consumer.unreserve(),
    };
  }

  /** One-shot watch on a lock node: `poke` when it is deleted (or already gone). */
  private watchLock(path: string, poke: () => void): void {
    this.deps.queue.zk
      .exists(path, (event) => {
        if (event.type === 'deleted') poke();
        else this.watchLock(path, poke);
      })
      .then((stat) => {
        if (!stat) poke();
      })
      .catch(() => poke());
  }

  /**
   * One-shot watches on an item's list of nodes and on each of its nodes (a handful): `changed`
   * when a node is created or deleted or written (an operator mends the data), or the item is gone.
   * Its `lock` is not one of them: this engine makes and deletes it at each look, so a change of
   * the list that only adds or removes the lock re-arms the watch instead (before, a look fired
   * the watch that made the next look: a loop of ~2,300 requests a second for one bad item).
   * A node written between the read that found the item unusable and the arming fires no watch,
   * so once armed the item is read once more (`armed`); its watches stay for the next change.
   */
  private watchItem(path: string, changed: () => void, armed: () => void): void {
    let fired = false;
    const once = (): void => {
      if (fired) return;
      fired = true;
      changed();
    };
    const { zk } = this.deps.queue;
    const nodes = (names: readonly string[]): string =>
      names
        .filter((name) => name !== 'lock')
        .sort()
        .join('/');
    let listed: string | undefined;
    const listChanged = (): void => {
      if (fired) return;
      zk.getChildren(path, listChanged)
        .then((names) => {
          if (nodes(names) !== listed) once();
        })
        .catch(once);
    };
    zk.getChildren(path, listChanged)
      .then((names) => {
        listed = nodes(names);
        return Promise.all(
          names.filter((name) => name !== 'lock').map((name) => zk.exists(`${path}/${name}`, once)),
        );
      })
      .then(() => {
        if (!fired) armed();
      }, once);
  }

  /** Fails a job that stayed without a node it needs (failIncompleteJob), unless it is whole now. */
  private async failIncomplete(jid: string, state: string, waitedMs: number): Promise<'done' | 'retry'> {
    try {
      const outcome = await failIncompleteJob(this.deps.queue, jid, state, waitedMs);
      if (outcome.failed) {
        this.problems.clear(jid);
        // Its folder's listing may still name it until the next read (at least 50 ms later): a
        // pass over it then would lock the failed job again, under an operator mending it.
        this.consumers.get(state)?.left(jid);
      } else this.deps.log.info({ jobId: jid, state, reason: outcome.reason }, 'incomplete job not failed');
      // Locked for a moment (a look at it, here or in another engine): tried again soon, by its timer.
      return !outcome.failed && outcome.reason === 'locked' ? 'retry' : 'done';
    } catch (err) {
      const retry = isZkError(err) && err.retryable;
      this.deps.log.warn(
        { jobId: jid, state, err },
        `could not fail an incomplete job${retry ? '; trying again later' : ''}`,
      );
      return retry ? 'retry' : 'done';
    }
  }

  /** Jobs waiting in a state whose step may keep them there are evaluated again. */
  private reevaluateWaiting(): void {
    for (const state of this.deps.queue.lifecycle.staysStates) this.consumers.get(state)?.reevaluate();
  }

  private startTimers(): void {
    if (this.deps.queue.lifecycle.staysStates.some((state) => this.consumers.has(state))) {
      const every = this.options.provisioningIntervalMs ?? 30_000;
      this.subscriptions.push(interval(every).subscribe(() => this.reevaluateWaiting()));
    }
    const sweep = this.options.sweepIntervalMs ?? 60_000;
    if (sweep > 0) {
      this.subscriptions.push(interval(sweep).subscribe(() => void this.sweep()));
    }
  }

  /**
   * Safety net: re-read every served job state folder, access queue and batch, in case a watch
   * was missed, and look again at every item waiting on a watch.
   */
  private async sweep(): Promise<void> {
    const { zk } = this.deps.queue;
    const read = async (what: Record<string, string>, offer: () => Promise<void>): Promise<void> => {
      try {
        await offer();
      } catch (err) {
        this.deps.log.warn({ ...what, err }, 'sweep could not read a folder');
      }
    };
    for (const state of this.served.jobStates) {
      const consumer = this.consumers.get(state) as Consumer<AcquiredJob> | undefined;
      await read({ state }, async () => {
        const { refs, readAt } = await readFirstRefs(zk, jobStateFolder(state), candidatesPerRead);
        consumer?.offer(refs, readAt);
      });
    }
    for (const [queue, consumer] of this.accessConsumers) {
      const watch = this.accessWatches.get(queue);
      await read({ queue }, async () => {
        const names = await zk.getChildren(accessQueuePath(queue));
        consumer.offer(watch ? watch.follow(names) : names.sort());
      });
    }
    if (this.served.batchWork.length > 0) {
      await read({ folder: 'batches' }, async () => {
        for (const [work, bids] of await batchWorkNow(zk))
          (this.consumers.get(`batch:${work}`) as Consumer<AcquiredBatch> | undefined)?.offer(bids);
      });
    }
    this.forgetWaiting();
  }

  /** Items locked elsewhere, watched through their lock at `lockPath(id)`. */
  private lockedElsewhere(lockPath: (id: string) => string): WaitingItems {
    return this.waiting(new WaitingItems((id, gone) => this.watchLock(lockPath(id), gone)));
  }

  /** Items that could not be used, watched through their nodes at `itemPath(id)`. */
  private unusable(itemPath: (id: string) => string): WaitingItems {
    return this.waiting(
      new WaitingItems(
        (id, changed, armed) => this.watchItem(itemPath(id), changed, armed),
        UNUSABLE_BACKOFF,
      ),
    );
  }

  private waiting(items: WaitingItems): WaitingItems {
    this.waitingSets.push(items);
    return items;
  }

  /** Every waiting item is looked at again (a new session, whose watches are new; the sweep). */
  private forgetWaiting(newSession = false): void {
    for (const items of this.waitingSets) items.forget(newSession);
  }

  private allConsumers(): (Consumer<AcquiredJob> | Consumer<AcquiredBatch> | Consumer<AcquiredAccess>)[] {
    return [...this.consumers.values(), ...this.accessConsumers.values()];
  }
}
