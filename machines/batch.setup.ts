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
import { reportFailureMessage } from './batch.context.js';
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
      expansionFailed: false,
    })),
    /** The batch goes to reporting with the reason, so the depositor hears why nothing ran. */
    recordExpansionFailure: assign((_, params: { message: string }) => ({
      message: params.message,
      expansionFailed: true,
    })),
    recordReport: assign((_, params: { completedJobs: number; failedJobs: number }) => ({
      completedJobs: params.completedJobs,
      failedJobs: params.failedJobs,
    })),
    /** A report that could not be sent; an expansion failure's reason is kept before it. */
    recordReportFailure: assign(({ context }, params: { message: string }) => ({
      message: reportFailureMessage(context, params.message),
    })),
    /** Back to processing: the old failure no longer applies; an unfinished expansion runs again. */
    reopen: assign({ message: null, expansionFailed: false }),
  },
  guards: {
    /** The batch could not be expanded: its report ends it failed, whatever it counted. */
    hasExpansionFailure: ({ context }) => context.expansionFailed,
    hasFailedJobs: (_, params: { failedJobs: number }) => params.failedJobs > 0,
  },
});
