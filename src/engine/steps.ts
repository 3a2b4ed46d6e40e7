import type { Logger } from 'pino';
import type {
  DownloadOutput,
  EstimateOutput,
  ExpandOutput,
  JobWorkingState,
  ProvisionOutput,
  ReportOutput,
} from '../../machines/index.js';
import type { AccessRecord } from '../queue/access.js';
import type { BatchRecord } from '../queue/batch-load.js';
import type { QueueContext } from '../queue/context.js';
import type { JobRecord } from '../queue/job-load.js';
import type { JobIdentifiers, JobInventory, StatusReport } from '../queue/records.js';

/** What every job step receives: the job as read from ZooKeeper, its abort signal, a logger. */
export interface JobStepArgs {
  job: JobRecord;
  signal: AbortSignal;
  log: Logger;
}

/** Data a step hands back to be written with its transition (in the same multi). */
export interface StepWrites {
  identifiers?: JobIdentifiers;
  inventory?: JobInventory;
}

/**
 * The side effects of the job states (DESIGN.md §5: `src/steps` implements them). Each honours
 * its AbortSignal and is safe to run again: after a crash the same step runs once more.
 */
export interface JobSteps {
  estimate(args: JobStepArgs): Promise<EstimateOutput>;
  provision(args: JobStepArgs): Promise<ProvisionOutput>;
  download(args: JobStepArgs): Promise<DownloadOutput>;
  process(args: JobStepArgs): Promise<StepWrites | void>;
  record(args: JobStepArgs): Promise<StepWrites | void>;
  notify(args: JobStepArgs): Promise<void>;
  /** After a job completed (its working directory goes); failures are logged, never fatal. */
  completed?(args: JobStepArgs): Promise<void>;
}

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

/** The machine actor that runs in each working job state. */
export const stepOfState: Readonly<Record<JobWorkingState, keyof Omit<JobSteps, 'completed'>>> = {
  estimating: 'estimate',
  provisioning: 'provision',
  downloading: 'download',
  processing: 'process',
  recording: 'record',
  notify: 'notify',
};

export interface AccessStepArgs {
  request: AccessRecord;
  signal: AbortSignal;
  log: Logger;
}

/** The access queue's step: assemble the requested object; resolves with the token fields to update. */
export interface AccessSteps {
  assemble(args: AccessStepArgs): Promise<Record<string, unknown>>;
}
