import { assign, setup } from 'xstate';
import type {
  DownloadOutput,
  EstimateOutput,
  JobContext,
  JobEvent,
  JobInput,
  JobStepInput,
  ProvisionOutput,
} from './job.types.js';
import { notProvided } from './step-actor.js';

/**
 * The job machine's types and named implementations. The steps are placeholders: the engine
 * supplies the real ones with `jobMachine.provide({ actors })`, type-checked against these.
 */
export const jobSetup = setup({
  types: {
    context: {} as JobContext,
    input: {} as JobInput,
    events: {} as JobEvent,
  },
  actors: {
    estimate: notProvided<EstimateOutput, JobStepInput>('estimate'),
    provision: notProvided<ProvisionOutput, JobStepInput>('provision'),
    download: notProvided<DownloadOutput, JobStepInput>('download'),
    process: notProvided<void, JobStepInput>('process'),
    store: notProvided<void, JobStepInput>('store'),
    record: notProvided<void, JobStepInput>('record'),
    notify: notProvided<void, JobStepInput>('notify'),
  },
  actions: {
    /** The seeds' rule: last_successful_status becomes the state just finished. */
    recordSuccess: assign((_, params: { step: string; spaceNeeded?: number; priority?: number }) => {
      const update: Partial<JobContext> = { lastSuccessfulStatus: params.step, message: null };
      if (params.spaceNeeded !== undefined) update.spaceNeeded = params.spaceNeeded;
      if (params.priority !== undefined) update.priority = params.priority;
      return update;
    }),
    /** A job kept where it is (short of space, waiting to retry) says why, so an operator can see what it waits for. */
    recordWait: assign((_, params: { message: string | undefined }) => ({
      message: params.message ?? 'waiting for working space',
    })),
    /** A failure keeps last_successful_status (003 "retain_prior_value") and says why. */
    recordFailure: assign((_, params: { message: string }) => ({ message: params.message })),
    /** A requeue is a deliberate retry (001): retry_count + 1; the old failure no longer applies. */
    countRetry: assign(({ context }) => ({ retryCount: context.retryCount + 1, message: null })),
  },
  guards: {
    /**
     * A requeue resumes at the step after the last one that succeeded: each requeue edge names
     * the last_successful_status values it takes (mrt-admin's requeue table; '' for none yet).
     */
    hasLastSuccessIn: ({ context }, params: { statuses: readonly string[] }) =>
      params.statuses.includes(context.lastSuccessfulStatus ?? ''),
  },
});
