import { raise } from 'xstate';
import { byInitialState } from './machine-at.js';
import { createJobContext } from './job.context.js';
import { jobSetup } from './job.setup.js';
import type { JobContext, JobEvent, JobStepInput, ProvisionOutput } from './job.types.js';
import { jobRequeueTable } from './job.table.js';
import type { JobState } from './states.js';
import { assertProvided, failureMessage } from './step-actor.js';

function stepInput({ context }: { context: JobContext }): JobStepInput {
  return { ...context };
}

/** A provision result as an event: go on, give up (failed), or stay and wait. */
function provisionEvent(output: ProvisionOutput): JobEvent {
  if (output.hasSpace) return { type: 'provision.done' };
  if (output.giveUp)
    return { type: 'provision.failed', message: output.message ?? 'no working space for this job' };
  return { type: 'space.short', message: output.message };
}

/**
 * mrt-admin's Fail: an operator fails a job that is not held, failed or final, with a reason.
 * Listed last in each state, so the state's own failure event stays its `failureEvent`.
 */
const adminFail = {
  target: 'failed',
  description: 'Operator fail',
  actions: {
    type: 'recordFailure',
    params: ({ event }: { event: Extract<JobEvent, { type: 'admin.fail' }> }) => ({ message: event.message }),
  },
} as const;

function requeueTo([state, statuses]: (typeof jobRequeueTable)[number]) {
  return {
    target: state,
    guard: { type: 'hasLastSuccessIn', params: { statuses } },
    actions: 'countRetry',
  } as const;
}

/**
 * The job lifecycle (DESIGN.md §3; seeds 003 and 001). Decisions where the seeds disagree or
 * are silent, each with its reason (docs/machines.md has the full list):
 * - Release of a held job goes back to pending (003), not to estimating (001): the pending
 *   consumer then checks the collection hold again, so a release during a hold cannot slip by.
 * - An operator may hold a pending job (`admin.hold`), as issue #4 lists "hold/release a job";
 *   it uses the documented pending → held edge, like a collection hold does.
 * - Processing → storing → recording, as mrt-zk's states.yml has it since October 2025: processing
 *   hands the object to storage through `/jobs/JID/store`, storage to inventory through
 *   `/jobs/JID/inventory` (merritt-protocols.md §1, §2). The seeds predate storing.
 * - Recording is followed by notify (003); 001's recording → completed predates notify.
 * - last_successful_status is the state just finished and is kept on failure (003), even where
 *   001 ("remains Estimating") or 003's own resume-to-notify example say otherwise.
 * - Estimating never fails (003): when the estimate step itself fails, space_needed is 0. A job
 *   that stays without a node it needs fails from estimating as from every state a step runs in
 *   (`estimate.failed`, mrt-zk's Estimating → Failed): nothing could run it.
 * - Provisioning waits, with a bound: short space, or a provision step that cannot tell, keeps
 *   the job in provisioning to be evaluated again (003 "remain in this state"); a job too large
 *   for this machine, or one that has waited longer than allowed, fails (`provision.failed`,
 *   mrt-zk's Provisioning → Failed), so nothing waits forever and its batch still reports.
 * - (none) → failed (001) is a creation followed by `job.rejected`, the same event that moves a
 *   pending job to failed (003 "A job will immediately fail"), written in one transaction.
 * - Requeue resumes after last_successful_status by mrt-admin's table (job.resume.ts) and clears
 *   the message; a last success the table does not map leaves the job failed, as in Merritt.
 * - An operator may fail a pending or working job (`admin.fail`, mrt-admin's Fail), with a reason;
 *   last_successful_status is kept, so a requeue resumes at the step it was failed in.
 * - completed and deleted are final: nothing leaves them; batch cleanup removes the nodes.
 */
function buildJobMachine(initial: JobState) {
  return jobSetup.createMachine({
    id: 'job',
    initial,
    context: ({ input }) => createJobContext(input),
    states: {
      pending: {
        description: 'Waiting for the pending consumer to take it',
        on: {
          'job.held': { target: 'held', description: 'A collection hold is in place' },
          'admin.hold': { target: 'held' },
          'job.acquired': { target: 'estimating' },
          'job.rejected': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      held: {
        description: 'Kept until an operator releases or deletes it',
        on: {
          'admin.release': { target: 'pending' },
          'admin.delete': { target: 'deleted' },
        },
      },
      estimating: {
        invoke: {
          id: 'estimate',
          src: 'estimate',
          input: stepInput,
          onDone: {
            actions: raise(({ event }) => ({
              type: 'estimate.done' as const,
              spaceNeeded: event.output.spaceNeeded,
              priority: event.output.priority,
            })),
          },
          onError: {
            actions: raise(({ event }) => {
              assertProvided(event.error);
              return { type: 'estimate.done' as const, spaceNeeded: 0 };
            }),
          },
        },
        on: {
          'estimate.failed': {
            target: 'failed',
            description: 'A node the job needs stays missing',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
          'estimate.done': {
            target: 'provisioning',
            actions: {
              type: 'recordSuccess',
              params: ({ event }) => ({
                step: 'estimating',
                spaceNeeded: event.spaceNeeded,
                priority: event.priority,
              }),
            },
          },
        },
      },
      provisioning: {
        invoke: {
          id: 'provision',
          src: 'provision',
          input: stepInput,
          onDone: { actions: raise(({ event }) => provisionEvent(event.output)) },
          onError: {
            actions: raise(({ event }) => ({
              type: 'space.short' as const,
              message: `cannot tell whether there is working space: ${failureMessage(event.error)}`,
            })),
          },
        },
        on: {
          'provision.done': {
            target: 'downloading',
            actions: { type: 'recordSuccess', params: { step: 'provisioning' } },
          },
          'space.short': {
            description: 'Stays; evaluated again later',
            actions: { type: 'recordWait', params: ({ event }) => ({ message: event.message }) },
          },
          'provision.failed': {
            target: 'failed',
            description: 'Too large for this machine, or waited longer than allowed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      downloading: {
        invoke: {
          id: 'download',
          src: 'download',
          input: stepInput,
          onDone: {
            actions: raise(({ event }) => ({
              type: 'download.done' as const,
              spaceNeeded: event.output.spaceNeeded,
            })),
          },
          onError: {
            actions: raise(({ event }) => ({
              type: 'download.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'download.done': {
            target: 'processing',
            actions: {
              type: 'recordSuccess',
              params: ({ event }) => ({ step: 'downloading', spaceNeeded: event.spaceNeeded }),
            },
          },
          'download.failed': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      processing: {
        invoke: {
          id: 'process',
          src: 'process',
          input: stepInput,
          onDone: { actions: raise({ type: 'process.done' }) },
          onError: {
            actions: raise(({ event }) => ({
              type: 'process.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'process.done': {
            target: 'storing',
            actions: { type: 'recordSuccess', params: { step: 'processing' } },
          },
          'process.failed': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      storing: {
        description: 'Storage takes the object from the /jobs/JID/store hand-off node',
        invoke: {
          id: 'store',
          src: 'store',
          input: stepInput,
          onDone: { actions: raise({ type: 'store.done' }) },
          onError: {
            actions: raise(({ event }) => ({
              type: 'store.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'store.done': {
            target: 'recording',
            actions: { type: 'recordSuccess', params: { step: 'storing' } },
          },
          'store.failed': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      recording: {
        description: 'Inventory records the version named by the /jobs/JID/inventory hand-off node',
        invoke: {
          id: 'record',
          src: 'record',
          input: stepInput,
          onDone: { actions: raise({ type: 'record.done' }) },
          onError: {
            actions: raise(({ event }) => ({
              type: 'record.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'record.done': {
            target: 'notify',
            actions: { type: 'recordSuccess', params: { step: 'recording' } },
          },
          'record.failed': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      notify: {
        invoke: {
          id: 'notify',
          src: 'notify',
          input: stepInput,
          onDone: { actions: raise({ type: 'notify.done' }) },
          onError: {
            actions: raise(({ event }) => ({
              type: 'notify.failed' as const,
              message: failureMessage(event.error),
            })),
          },
        },
        on: {
          'notify.done': {
            target: 'completed',
            actions: { type: 'recordSuccess', params: { step: 'notify' } },
          },
          'notify.failed': {
            target: 'failed',
            actions: { type: 'recordFailure', params: ({ event }) => ({ message: event.message }) },
          },
          'admin.fail': adminFail,
        },
      },
      completed: {
        type: 'final',
        description: 'Nodes kept for reporting until the batch is cleaned up',
      },
      failed: {
        description: 'Kept until an operator requeues or deletes it',
        on: {
          'admin.requeue': jobRequeueTable.map(requeueTo),
          'admin.delete': { target: 'deleted' },
        },
      },
      deleted: { type: 'final' },
    },
  });
}

export type JobMachine = ReturnType<typeof buildJobMachine>;

/**
 * The job machine entered at `state` instead of pending, so that state's step runs when an
 * actor starts (restoring a stored job; see machine-at.ts).
 */
export const jobMachineAt: (state: JobState) => JobMachine = byInitialState(buildJobMachine);

/** The job lifecycle, starting at pending. */
export const jobMachine: JobMachine = jobMachineAt('pending');
