import type { Logger } from 'pino';
import type { InspectionEvent, Observer } from 'xstate';
import type { QueueContext } from '../queue/context.js';
import type { EngineMetrics } from '../telemetry/engine-metrics.js';
import type { Ledger } from './ledger.js';
import type { AccessSteps, BatchSteps, JobSteps } from './steps.js';

/** What the engine's workers need; built once by the composition root. */
export interface EngineDeps {
  queue: QueueContext;
  jobSteps: JobSteps;
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
}
