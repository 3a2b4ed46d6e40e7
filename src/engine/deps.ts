import type { Logger } from 'pino';
import type { InspectionEvent, Observer } from 'xstate';
import type { AcquiredJob } from '../queue/jobs/acquire.js';
import type { HeldLock } from '../queue/locks/lock.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { EngineMetrics } from '../telemetry/engine-metrics.js';
import type { Ledger } from './ledger.js';
import type { StepIsolation } from './step-isolation.js';
import type { RetryPolicy } from './retry/policy.js';
import type { AccessSteps, BatchSteps, JobStepSet } from '../steps/contracts.js';

/** A reserved slot for a job kept locked across a transition (see EngineDeps.handOver). */
export interface HandOver {
  /**
   * The commit kept the lock: run the job's next step in the slot. `signal` is the step's own: the
   * next step runs under it too while it is not aborted (see Consumer.start).
   */
  accept(job: AcquiredJob, signal?: AbortSignal): void;
  /** The commit did not happen (or released the lock): give the slot back. */
  cancel(): void;
}

/** What the engine's workers need; built once by the composition root. */
export interface EngineDeps {
  queue: QueueContext;
  /** The steps of the queue's job lifecycle, by the step names of its table. */
  jobSteps: JobStepSet;
  batchSteps: BatchSteps;
  /** The access queue's assembly; no access consumer runs without it. */
  accessSteps?: AccessSteps;
  ledger: Ledger;
  log: Logger;
  /** Counts transitions, step failures and durations, lock contention (`/metrics`). */
  metrics?: EngineMetrics;
  /** Attached to every machine actor (the Stately inspector). */
  inspect?: Observer<InspectionEvent>;
  /** Collections on hold right now (kept current by a watcher). */
  heldCollections(): ReadonlySet<string>;
  /**
   * A slot in this process's consumer of `state` for a job whose step is about to commit into
   * it (`refName` as in its folder), or undefined when there is none free or the job must wait
   * its turn. With a slot the commit keeps the lock and the job goes on here, without being
   * acquired again (DESIGN.md invariant 1 holds: the multi still checks the lock).
   */
  handOver?(state: string, refName: string): HandOver | undefined;
  /** This engine as step attempts name it (default `<host>-<pid>`). */
  engineId?: string;
  /**
   * Attempts at a job's step that may end with their process or session before the job is
   * failed as poison (default 3; 0: never). See job-attempts.ts.
   */
  poisonAttempts?: number;
  /**
   * A job whose step left it where it was (provisioning, short of space) is looked at again after
   * `ms` by this process's consumer of `state`, when its step said when (`retryInMs`): a wait's
   * limit then ends it on time, not at the next re-evaluation.
   */
  lookAgain?(state: string, jid: string, ms: number): void;
  /**
   * The retry policy in force (`/policies/retry`, watched): how a step's transient failure is
   * tried again (src/engine/retry). Absent: the defaults.
   */
  retryPolicy?(): RetryPolicy;
  /** The gate that runs a suspect job's step alone in this process (see StepIsolation). */
  isolation?: StepIsolation;
  /**
   * Whether this process's event loop stalled since `at` (performance.now()) long enough to have
   * cost its session (a third of the session timeout); undefined when nothing watches it. A lost
   * session is put down to ZooKeeper only when it did not.
   */
  stalledSince?(at: number): boolean;
  /** Resolves when a step holding `lock` may start (see StallGuard); rejects with StepAbortedError when not. */
  beforeStep?(lock: HeldLock): Promise<void>;
}
