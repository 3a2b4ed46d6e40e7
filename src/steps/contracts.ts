import type { Logger } from 'pino';
import type {
  DownloadOutput,
  EstimateOutput,
  ExpandOutput,
  ProvisionOutput,
  ReportOutput,
} from '../../machines/index.js';
import type { AccessRecord } from '../queue/access/requests.js';
import type { BatchRecord } from '../queue/batches/load.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { JobRecord } from '../queue/jobs/load.js';
import type {
  JobIdentifiers,
  JobInventory,
  JobMetadata,
  JobStore,
  StatusReport,
} from '../queue/tree/records.js';

/** What every job step receives: the job as read from ZooKeeper, its abort signal, a logger. */
export interface JobStepArgs {
  job: JobRecord;
  signal: AbortSignal;
  log: Logger;
  /**
   * Keeps facts of this step in the job's history (issue 35) with its transition: what a PREMIS
   * event says of it (files and bytes fetched, digests verified or computed, the storage node).
   * Small values only: the history keeps a line per step, not the object's manifest.
   */
  note?: (detail: Readonly<Record<string, unknown>>) => void;
}

/**
 * Data a step hands back to be written with its transition (in the same multi): processing's
 * identifiers and the two hand-off nodes Merritt's storage and inventory read (§1, §2). The
 * hand-off nodes are written only while absent or empty, so a requeue keeps the original.
 */
export interface StepWrites {
  identifiers?: JobIdentifiers;
  metadata?: JobMetadata;
  store?: JobStore;
  inventory?: JobInventory;
}

/** The keys of {@link StepWrites}: a step's output carrying one of them is written with its transition. */
export const STEP_WRITE_KEYS = [
  'identifiers',
  'metadata',
  'store',
  'inventory',
] as const satisfies readonly (keyof StepWrites)[];

/** The side effect of one working job state: honours its AbortSignal, safe to run again after a crash. */
export type JobStep = (args: JobStepArgs) => Promise<unknown>;

/**
 * The side effects of a job lifecycle's working states, by the step name its table gives
 * (DESIGN.md §5: `src/steps` implements them), and what runs after a job completed.
 */
export interface JobStepSet {
  steps: Readonly<Record<string, JobStep>>;
  /** After a job completed (its working directory goes); failures are logged, never fatal. */
  completed?: JobStep;
}

/** The steps of Merritt's job lifecycle (machines/states.ts), typed by what each returns to its machine. */
export type MerrittJobSteps = {
  estimate(args: JobStepArgs): Promise<EstimateOutput>;
  provision(args: JobStepArgs): Promise<ProvisionOutput>;
  download(args: JobStepArgs): Promise<DownloadOutput>;
  process(args: JobStepArgs): Promise<StepWrites | void>;
  store(args: JobStepArgs): Promise<StepWrites | void>;
  record(args: JobStepArgs): Promise<StepWrites | void>;
  notify(args: JobStepArgs): Promise<void>;
};

export interface ExpandArgs {
  batch: BatchRecord;
  signal: AbortSignal;
  log: Logger;
  /** The store, for creating the batch's jobs (`createJobs`, idempotent per manifest position). */
  queue: QueueContext;
}

/** The jobs of a batch by folder, as reporting finds them. */
export interface BatchJobLists {
  completed: string[];
  failed: string[];
  deleted: string[];
}

export interface ReportArgs {
  batch: BatchRecord;
  /** An update report (update-reporting) rather than the first one. */
  update: boolean;
  jobs: BatchJobLists;
  /** The report sent before, for an update. */
  previous: StatusReport | undefined;
  signal: AbortSignal;
  log: Logger;
}

export interface BatchSteps {
  expand(args: ExpandArgs): Promise<ExpandOutput>;
  report(args: ReportArgs): Promise<ReportOutput>;
}

export interface AccessStepArgs {
  request: AccessRecord;
  signal: AbortSignal;
  log: Logger;
}

/** The access queue's step: assemble the requested object; resolves with the token fields to update. */
export interface AccessSteps {
  assemble(args: AccessStepArgs): Promise<Record<string, unknown>>;
}
