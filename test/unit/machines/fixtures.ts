import { fromPromise } from 'xstate';
import type {
  AccessEvent,
  AccessEventType,
  BatchEvent,
  BatchEventType,
  JobEvent,
  JobEventType,
  JobState,
  JobWorkingState,
  StoredAccess,
  StoredBatch,
  StoredJob,
} from '../../../machines/index.js';

type Samples<E extends { type: string }> = { [K in E['type']]: Extract<E, { type: K }>[] };

/** At least one example of every event; the mapped type makes a new event need a sample. */
export const jobEventSamples: Samples<JobEvent> = {
  'job.held': [{ type: 'job.held' }],
  'job.acquired': [{ type: 'job.acquired' }],
  'job.rejected': [{ type: 'job.rejected', message: 'digest mismatch for file1.txt' }],
  'estimate.done': [{ type: 'estimate.done', spaceNeeded: 1_000_000_000, priority: 10 }],
  'estimate.failed': [{ type: 'estimate.failed', message: '/jobs/jid0000000001/configuration is missing' }],
  'provision.done': [{ type: 'provision.done' }],
  'space.short': [{ type: 'space.short' }],
  'provision.failed': [{ type: 'provision.failed', message: 'needs 900 TiB; at most 70 GiB fits here' }],
  'download.done': [{ type: 'download.done', spaceNeeded: 1_100_000_000 }],
  'download.failed': [{ type: 'download.failed', message: 'GET https://example.org/f returned 503' }],
  'process.done': [{ type: 'process.done' }],
  'process.failed': [{ type: 'process.failed', message: 'minting failed' }],
  'store.done': [{ type: 'store.done' }],
  'store.failed': [{ type: 'store.failed', message: 'Store action failed: node 7777 unavailable' }],
  'record.done': [{ type: 'record.done' }],
  'record.failed': [{ type: 'record.failed', message: 'inventory unavailable' }],
  'notify.done': [{ type: 'notify.done' }],
  'notify.failed': [{ type: 'notify.failed', message: 'callback returned 500' }],
  'step.retry': [
    {
      type: 'step.retry',
      message: 'transient failure 1 of 5 (HTTP 503); next attempt at 2026-11-28T17:00:30.000Z',
      retryAt: '2026-11-28T17:00:30.000Z',
    },
  ],
  'admin.hold': [{ type: 'admin.hold' }],
  'admin.release': [{ type: 'admin.release' }],
  'admin.requeue': [{ type: 'admin.requeue' }],
  'admin.delete': [{ type: 'admin.delete' }],
  'admin.fail': [{ type: 'admin.fail', message: 'failed by an operator: stuck on a dead storage node' }],
};

export const batchEventSamples: Samples<BatchEvent> = {
  'batch.held': [{ type: 'batch.held' }],
  'batch.acquired': [{ type: 'batch.acquired' }],
  'expand.done': [{ type: 'expand.done', jobCount: 3 }],
  'expand.failed': [{ type: 'expand.failed', message: 'manifest is not a checkm file' }],
  'batch.jobs-done': [{ type: 'batch.jobs-done' }],
  'report.done': [
    { type: 'report.done', completedJobs: 3, failedJobs: 0 },
    { type: 'report.done', completedJobs: 1, failedJobs: 2 },
  ],
  'report.failed': [{ type: 'report.failed', message: 'mail server refused' }],
  'batch.job-requeued': [{ type: 'batch.job-requeued' }],
  'admin.hold': [{ type: 'admin.hold' }],
  'admin.release': [{ type: 'admin.release' }],
  'admin.update-report': [{ type: 'admin.update-report' }],
  'admin.delete': [{ type: 'admin.delete' }],
};

export const accessEventSamples: Samples<AccessEvent> = {
  'access.acquired': [{ type: 'access.acquired' }],
  'assemble.done': [{ type: 'assemble.done' }],
  'assemble.failed': [{ type: 'assemble.failed', message: 'object too large' }],
  'admin.requeue': [{ type: 'admin.requeue' }],
  'admin.delete': [{ type: 'admin.delete' }],
};

export const jobEventTypes = Object.keys(jobEventSamples) as JobEventType[];
export const batchEventTypes = Object.keys(batchEventSamples) as BatchEventType[];
export const accessEventTypes = Object.keys(accessEventSamples) as AccessEventType[];

export const allJobEvents: JobEvent[] = Object.values<JobEvent[]>(jobEventSamples).flat();
export const allBatchEvents: BatchEvent[] = Object.values<BatchEvent[]>(batchEventSamples).flat();
export const allAccessEvents: AccessEvent[] = Object.values<AccessEvent[]>(accessEventSamples).flat();

/** A last_successful_status that makes a requeue resume at `state`. */
export const lastSuccessBefore: Record<JobWorkingState, JobState | null> = {
  estimating: null,
  provisioning: 'estimating',
  downloading: 'provisioning',
  processing: 'downloading',
  storing: 'processing',
  recording: 'storing',
  notify: 'recording',
};

export function storedJob(status: JobState, overrides: Partial<StoredJob> = {}): StoredJob {
  return {
    status,
    jobId: 'jid0000000001',
    batchId: 'bid0000000001',
    priority: 5,
    spaceNeeded: 0,
    retryCount: 0,
    lastSuccessfulStatus: null,
    message: null,
    ...overrides,
  };
}

export function storedBatch(
  status: StoredBatch['status'],
  overrides: Partial<StoredBatch> = {},
): StoredBatch {
  return {
    status,
    batchId: 'bid0000000001',
    jobCount: 0,
    completedJobs: 0,
    failedJobs: 0,
    message: null,
    expansionFailed: false,
    ...overrides,
  };
}

export function storedAccess(
  status: StoredAccess['status'],
  overrides: Partial<StoredAccess> = {},
): StoredAccess {
  return { status, accessId: 'qid0000000001', queue: 'small', message: null, ...overrides };
}

/** A step that never settles on its own: the test decides what happens by sending events. */
export function pendingStep<TOutput, TInput>() {
  return fromPromise<TOutput, TInput>(
    ({ signal }) =>
      new Promise<TOutput>((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('step stopped'))),
      ),
  );
}

/** A step that succeeds with `output`, recording that it ran. */
export function succeedingStep<TOutput, TInput>(output: TOutput, ran?: string[], name?: string) {
  return fromPromise<TOutput, TInput>(() => {
    if (ran && name) ran.push(name);
    return Promise.resolve(output);
  });
}

/** A step that fails with `message`, recording that it ran. */
export function failingStep<TOutput, TInput>(message: string, ran?: string[], name?: string) {
  return fromPromise<TOutput, TInput>(() => {
    if (ran && name) ran.push(name);
    return Promise.reject(new Error(message));
  });
}
