import { assign, setup } from 'xstate';
import type {
  BatchContext,
  BatchEvent,
  BatchInput,
  BatchStepInput,
  ExpandOutput,
  ReportInput,
  ReportOutput,
} from './batch.types.js';
import { notProvided } from './step-actor.js';

/**
 * The batch machine's types and named implementations; the engine supplies the real
 * `expand` and `report` steps with `batchMachine.provide({ actors })`.
 */
export const batchSetup = setup({
  types: {
    context: {} as BatchContext,
    input: {} as BatchInput,
    events: {} as BatchEvent,
  },
  actors: {
    expand: notProvided<ExpandOutput, BatchStepInput>('expand'),
    report: notProvided<ReportOutput, ReportInput>('report'),
  },
  actions: {
    recordExpansion: assign((_, params: { jobCount: number }) => ({
      jobCount: params.jobCount,
      message: null,
    })),
    recordReport: assign((_, params: { completedJobs: number; failedJobs: number }) => ({
      completedJobs: params.completedJobs,
      failedJobs: params.failedJobs,
    })),
    recordFailure: assign((_, params: { message: string }) => ({ message: params.message })),
    clearMessage: assign({ message: null }),
  },
  guards: {
    hasFailedJobs: (_, params: { failedJobs: number }) => params.failedJobs > 0,
  },
});
