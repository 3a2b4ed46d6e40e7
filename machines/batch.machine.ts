import { raise } from 'xstate';
import { byInitialState } from './machine-at.js';
import { createBatchContext } from './batch.context.js';
import { batchSetup } from './batch.setup.js';
import type { BatchState } from './states.js';
import { failureMessage } from './step-actor.js';

/**
 * Reporting and update-reporting: send the report, then end failed when the batch could not be
 * expanded or some jobs failed, completed otherwise; a report that cannot be sent fails it.
 */
function reportingState(update: boolean) {
  return batchSetup.createStateConfig({
    invoke: {
      id: 'report',
      src: 'report',
      input: ({ context }) => ({ ...context, update }),
      onDone: { actions: raise(({ event }) => ({ type: 'report.done' as const, ...event.output })) },
      onError: {
        actions: raise(({ event }) => ({
          type: 'report.failed' as const,
          message: failureMessage(event.error),
        })),
      },
    },
    on: {
      'report.done': [
        {
          target: 'failed',
          guard: 'hasExpansionFailure',
          actions: { type: 'recordReport', params: ({ event }) => event },
        },
        {
          target: 'failed',
          guard: { type: 'hasFailedJobs', params: ({ event }) => ({ failedJobs: event.failedJobs }) },
          actions: { type: 'recordReport', params: ({ event }) => event },
        },
        { target: 'completed', actions: { type: 'recordReport', params: ({ event }) => event } },
      ],
      'report.failed': {
        target: 'failed',
        actions: { type: 'recordReportFailure', params: ({ event }) => ({ message: event.message }) },
      },
    },
  });
}

/**
 * The batch lifecycle (DESIGN.md §3; seeds 003 and 001). Decisions, with reasons
 * (docs/machines.md has the full list):
 * - Release of a held batch goes back to pending (003), not to processing (001): the pending
 *   consumer then checks the collection hold again before expanding.
 * - An operator may hold a pending batch (`admin.hold`), symmetric with jobs; it uses the
 *   documented pending → held edge.
 * - Expansion runs in processing. `expand.done` keeps the batch in processing until its jobs are
 *   done. Entering processing again (a requeued job, an engine restart) runs expand again, which
 *   must create nothing twice (DESIGN.md invariant 5).
 * - A batch that cannot be expanded is reported, saying why, and then ends failed: expand.failed
 *   goes to reporting (mrt-zk's states.yml: Processing → Reporting on fail), not straight to
 *   failed (001, DESIGN.md §3), which would leave the depositor without a word.
 * - A report that cannot be sent fails the batch (001 "Reporting --> Failed (Reporting)");
 *   the operator's update-report sends it again.
 * - completed and deleted are final; cleanup of a completed batch removes it, it is no state.
 */
function buildBatchMachine(initial: BatchState) {
  return batchSetup.createMachine({
    id: 'batch',
    initial,
    context: ({ input }) => createBatchContext(input),
    states: {
      pending: {
        description: 'Waiting for the batch consumer to take it',
        on: {
          'batch.held': { target: 'held', description: 'A collection hold is in place' },
          'admin.hold': { target: 'held' },
          'batch.acquired': { target: 'processing' },
        },
      },
      held: {
        description: 'Kept until an operator releases or deletes it',
        on: {
          'admin.release': { target: 'pending' },
          'admin.delete': { target: 'deleted' },
        },
      },
      processing: {
        description: 'Jobs run; left when batch-processing is empty',
        invoke: {
          id: 'expand',
          src: 'expand',
          input: ({ context }) => ({ ...context }),
          onDone: {
            actions: raise(({ event }) => ({
              type: 'expand.done' as const,
              jobCount: event.output.jobCount,
            })),
          },
          onError: {
            actions: raise(({ event }) => ({
              type: 'expand.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'expand.done': {
            actions: { type: 'recordExpansion', params: ({ event }) => ({ jobCount: event.jobCount }) },
          },
          'expand.failed': {
            target: 'reporting',
            description: 'The depositor hears why (reported), then the batch ends failed',
            actions: { type: 'recordExpansionFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'batch.jobs-done': { target: 'reporting' },
        },
      },
      reporting: reportingState(false),
      completed: { type: 'final', description: 'Cleanup removes it' },
      failed: {
        description: 'Some jobs failed, or the batch could not be expanded or reported',
        on: {
          'batch.job-requeued': { target: 'processing', actions: 'reopen' },
          'admin.update-report': { target: 'update-reporting' },
          'admin.delete': { target: 'deleted' },
        },
      },
      'update-reporting': reportingState(true),
      deleted: { type: 'final' },
    },
  });
}

export type BatchMachine = ReturnType<typeof buildBatchMachine>;

/** The batch machine entered at `state`, so that state's step runs when an actor starts. */
export const batchMachineAt: (state: BatchState) => BatchMachine = byInitialState(buildBatchMachine);

/** The batch lifecycle, starting at pending. */
export const batchMachine: BatchMachine = batchMachineAt('pending');
