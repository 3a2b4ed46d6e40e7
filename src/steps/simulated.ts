import type {
  AccessSteps,
  BatchSteps,
  JobStepArgs,
  JobStepSet,
  MerrittJobSteps,
  StepWrites,
} from './contracts.js';
import { createJobs, type JobSpec } from '../queue/jobs/create.js';
import { sleep } from './abortable-sleep.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { ObjectLockKind } from '../queue/locks/queue-pause.js';
import { withObjectLock } from './services/output-lock.js';
import { currentRetry } from '../queue/jobs/retry-record.js';

/**
 * Simulated steps: every job step waits `stepDelayMs` (honouring its AbortSignal) and succeeds,
 * unless the job was told to fail in that state. They exercise the whole engine (streams,
 * consumers, machines, transitions, reporting) without downloading or storing anything: for
 * tests, benchmarks and a first run. The real ingest steps are issue #6.
 *
 * A simulated batch has the payload `sim:<number of jobs>`; `submission.simulate.failAt` maps
 * manifest positions to the state their job fails in (`{"3": "downloading"}`), every time it gets
 * there (job configuration `simulate_fail_at`). `submission.simulate.failOnce` is the same but
 * fails only the first attempt (`simulate_fail_once_at`): the step fails while the job's
 * `retry_count` is 0, and an operator's requeue increments `retry_count` (admin.requeue, see
 * requeueJob), so a requeued job then gets through. Nothing else changes `retry_count`.
 * `submission.simulate.exitAt` (same shape) ends the engine's process when the job's step starts
 * in that state, every time (`simulate_exit_at`): a poison job. `submission.simulate.transientAt`
 * (same shape) makes the step fail transiently there (`simulate_transient_at`), as a 503 or a
 * reset connection would: `transientTimes` (position → count, `simulate_transient_times`) says
 * how many times in a row (counted in the job's retry record, so across engines and restarts),
 * every time when absent; the retry policy then tries it again (src/engine/retry). `submission.simulate.objectLocks`
 * makes store and record hold the object's lock in ZooKeeper as the real steps do.
 *
 * Only downloading, processing, storing, recording and notify can fail a job this way: the job machine
 * reads a failed estimate as size 0 and a failed provisioning check as "space short" (the job
 * waits in provisioning), as the seeds say those steps do not fail.
 */
export interface SimulationOptions {
  /** Time each step takes (default 0). */
  stepDelayMs?: number;
  /**
   * The queue, for jobs whose simulated store and record take their object lock as the real steps
   * do (`submission.simulate.objectLocks`): without it they take none.
   */
  queue?: QueueContext;
}

/** How long a simulated store or record waits for its object lock before it fails. */
const OBJECT_LOCK_WAIT_MS = 60_000;

const PAYLOAD = /^sim:(\d{1,7})$/;

/**
 * Ends this process as a library that throws from a socket handler would (an uncaught exception,
 * no shutdown), when the job says so (`simulate_exit_at`): poison containment is tested with it.
 */
function exitIfAsked(args: JobStepArgs, state: string): void {
  if (args.job.configuration.simulate_exit_at !== state) return;
  args.log.warn({ jobId: args.job.jobId, state }, 'simulated crash: this process ends now');
  setImmediate(() => {
    throw new Error(`simulated crash while ${state} (job ${args.job.jobId})`);
  });
}

/** A failure another attempt may pass (classified transient, src/engine/retry). */
class SimulatedTransientError extends Error {
  readonly code = 'SIMULATED_TRANSIENT';
  readonly retryable = true;
}

function failIfAsked(args: JobStepArgs, state: string): void {
  const { configuration, retryCount } = args.job;
  if (configuration.simulate_transient_at === state) {
    const times = Number(configuration.simulate_transient_times ?? Number.POSITIVE_INFINITY);
    const failures = currentRetry(args.job.retry, args.job)?.failures ?? 0;
    if (failures < times)
      throw new SimulatedTransientError(
        `simulated transient failure while ${state} (${failures + 1} so far)`,
      );
  }
  if (configuration.simulate_fail_at === state) throw new Error(`simulated failure while ${state}`);
  if (configuration.simulate_fail_once_at === state && retryCount === 0)
    throw new Error(`simulated failure while ${state} (first attempt only)`);
}

/** What simulated processing writes: an ark, and hand-off nodes in Merritt's format (node 9999). */
function simulatedHandOff(jobId: string, localIds: string[]): StepWrites {
  const ark = `ark:/99999/sim${jobId.slice(3)}`;
  const encoded = encodeURIComponent(ark);
  return {
    identifiers: { primary_id: ark, local_id: localIds },
    store: { manifest_url: `sim:manifest/${jobId}`, mode: `add/9999/${encoded}`, delete: '' },
    inventory: { manifest_url: `sim:store/manifest/9999/${encoded}`, mode: '' },
  };
}

/** Waits `ms` (honouring the signal); a step of 0 ms does no work at all: no timer, only the abort check. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms > 0) return sleep(ms, signal);
  return signal.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve();
}

export function createSimulatedSteps(options: SimulationOptions = {}): {
  jobSteps: JobStepSet & { steps: MerrittJobSteps };
  batchSteps: BatchSteps;
  accessSteps: AccessSteps;
} {
  const delay = options.stepDelayMs ?? 0;
  // A step fails where the job's configuration says, by the state that runs it (the lifecycle's table).
  const step =
    <T>(name: keyof MerrittJobSteps, result: (args: JobStepArgs) => T) =>
    async (args: JobStepArgs): Promise<T> => {
      const state = args.job.status;
      exitIfAsked(args, state);
      await pause(delay, args.signal);
      args.log.debug({ jobId: args.job.jobId, state, step: name }, 'simulated step');
      failIfAsked(args, state);
      return result(args);
    };
  // Store and record hold the object's lock, as Merritt's storage and inventory services do.
  const locked =
    (kind: ObjectLockKind, name: 'store' | 'record') =>
    (args: JobStepArgs): Promise<undefined> => {
      const ark = args.job.identifiers?.primary_id;
      const run = step(name, () => undefined);
      if (!options.queue || !args.job.configuration.simulate_object_locks || !ark) return run(args);
      const wait = { signal: args.signal, log: args.log, limitMs: OBJECT_LOCK_WAIT_MS };
      return withObjectLock(options.queue, kind, ark, wait, () => run(args));
    };
  const steps: MerrittJobSteps = {
    estimate: step('estimate', () => ({ spaceNeeded: 0 })),
    provision: step('provision', () => ({ hasSpace: true })),
    download: step('download', () => ({})),
    process: step('process', ({ job }) => simulatedHandOff(job.jobId, job.identifiers?.local_id ?? [])),
    store: locked('storage', 'store'),
    record: locked('inventory', 'record'),
    notify: step('notify', () => undefined),
  };
  const jobSteps = { steps };
  const batchSteps: BatchSteps = {
    async expand({ batch, queue }) {
      const match = PAYLOAD.exec(batch.submission.payload_url);
      if (!match)
        throw new Error(
          `simulated steps expand only "sim:<jobs>" payloads, not "${batch.submission.payload_url}"`,
        );
      const simulate = (batch.submission.simulate ?? {}) as {
        failAt?: Record<string, string>;
        failOnce?: Record<string, string>;
        transientAt?: Record<string, string>;
        transientTimes?: Record<string, number>;
        exitAt?: Record<string, string>;
        objectLocks?: boolean;
      };
      const specs: JobSpec[] = Array.from({ length: Number(match[1]) }, (_, position) => ({
        position,
        configuration: {
          profile_name: batch.submission.profile_name,
          submitter: batch.submission.submitter,
          payload_url: `sim:object/${position}`,
          payload_type: 'object_manifest',
          ...(batch.submission.collection ? { collection: batch.submission.collection } : {}),
          ...(simulate.failAt?.[position] ? { simulate_fail_at: simulate.failAt[position] } : {}),
          ...(simulate.failOnce?.[position] ? { simulate_fail_once_at: simulate.failOnce[position] } : {}),
          ...(simulate.transientAt?.[position]
            ? { simulate_transient_at: simulate.transientAt[position] }
            : {}),
          ...(simulate.transientTimes?.[position] !== undefined
            ? { simulate_transient_times: simulate.transientTimes[position] }
            : {}),
          ...(simulate.exitAt?.[position] ? { simulate_exit_at: simulate.exitAt[position] } : {}),
          ...(simulate.objectLocks ? { simulate_object_locks: true } : {}),
        },
      }));
      await createJobs(queue, batch.batchId, specs);
      return { jobCount: specs.length };
    },
    async report({ jobs, signal }) {
      await pause(delay, signal);
      return { completedJobs: jobs.completed.length, failedJobs: jobs.failed.length };
    },
  };
  const accessSteps: AccessSteps = {
    async assemble({ request, signal }) {
      await pause(delay, signal);
      if (request.token.simulate_fail) throw new Error('simulated assembly failure');
      return { url: `sim://access/${request.accessId}.zip`, 'cloud-content-byte': 0, status: 'available' };
    },
  };
  return { jobSteps, batchSteps, accessSteps };
}
