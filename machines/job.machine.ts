import { raise } from 'xstate';
import { byInitialState } from './machine-at.js';
import { createJobContext } from './job.context.js';
import { jobSetup } from './job.setup.js';
import type { JobContext, JobEvent, JobStepInput, ProvisionOutput } from './job.types.js';
import { jobTable, type JobEdge } from './job.table.js';
import { jobStateTable, type JobState } from './states.js';
import { assertProvided, failureMessage, retryLaterOf } from './step-actor.js';

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

type StepResult = { output?: unknown; error?: unknown };

/**
 * How a step's result becomes its state's events. By default a step's output rides on
 * `<step>.done` (estimate's space and priority, download's measured space) and its error is
 * `<step>.failed` with the message. Two steps differ (DESIGN.md §3): estimate never fails (its
 * error estimates 0), and provision may also leave the job waiting (`space.short`).
 */
const stepEvents: Partial<
  Record<string, { done?: (r: StepResult) => JobEvent; error?: (r: StepResult) => JobEvent }>
> = {
  estimate: {
    error: ({ error }) => {
      assertProvided(error);
      return { type: 'estimate.done', spaceNeeded: 0 };
    },
  },
  provision: {
    done: ({ output }) => provisionEvent(output as ProvisionOutput),
    error: ({ error }) => ({
      type: 'space.short',
      message: `cannot tell whether there is working space: ${failureMessage(error)}`,
    }),
  },
};

function stepInvoke(step: string) {
  const events = stepEvents[step];
  const done =
    events?.done ?? (({ output }) => ({ type: `${step}.done`, ...(output as object) }) as JobEvent);
  // A transient failure its retry policy allows to try again keeps the job where it is.
  const error =
    events?.error ??
    (({ error }) => {
      const retry = retryLaterOf(error);
      if (retry) return { type: 'step.retry', message: retry.message, retryAt: retry.retryAt };
      return { type: `${step}.failed`, message: failureMessage(error) } as JobEvent;
    });
  return {
    id: step,
    src: step,
    input: stepInput,
    onDone: { actions: raise(({ event }) => done(event as StepResult)) },
    onError: { actions: raise(({ event }) => error(event as StepResult)) },
  };
}

const messageOf = (event: JobEvent): string | undefined => ('message' in event ? event.message : undefined);

/**
 * What taking `edge` does to the job's context, read off the edge's shape: a requeue counts a
 * retry (guarded by mrt-admin's table); an edge that stays says what the job waits for; an edge
 * into failed records the failure and keeps last_successful_status; a step's `.done` records the
 * success (and the space and priority the step measured); the rest only move the job.
 */
function transitionOf(edge: JobEdge) {
  const base = { description: edge.trigger };
  const from = edge.from as JobState;
  if (edge.event === 'admin.requeue')
    return { ...base, target: edge.to, guard: edge.guard, actions: 'countRetry' };
  if (edge.to === from)
    return {
      ...base,
      actions: {
        type: 'recordWait',
        params: ({ event }: { event: JobEvent }) => ({ message: messageOf(event) }),
      },
    };
  if (edge.to === 'failed')
    return {
      ...base,
      target: edge.to,
      actions: {
        type: 'recordFailure',
        params: ({ event }: { event: JobEvent }) => ({ message: messageOf(event) ?? '' }),
      },
    };
  if (edge.event.endsWith('.done'))
    return {
      ...base,
      target: edge.to,
      actions: {
        type: 'recordSuccess',
        params: ({ event }: { event: JobEvent }) => ({
          step: from,
          ...('spaceNeeded' in event ? { spaceNeeded: event.spaceNeeded } : {}),
          ...('priority' in event ? { priority: event.priority } : {}),
        }),
      },
    };
  return { ...base, target: edge.to };
}

/** The transitions out of `state`, from the table, in table order (several edges of one event are tried in order). */
function transitionsFrom(state: JobState) {
  const on: Record<string, ReturnType<typeof transitionOf>[]> = {};
  for (const edge of jobTable) if (edge.from === state) (on[edge.event] ??= []).push(transitionOf(edge));
  return on;
}

/** What each state is for, shown in the inspector. */
const descriptions: Partial<Record<JobState, string>> = {
  pending: 'Waiting for the pending consumer to take it',
  held: 'Kept until an operator releases or deletes it',
  storing: 'Storage takes the object from the /jobs/JID/store hand-off node',
  recording: 'Inventory records the version named by the /jobs/JID/inventory hand-off node',
  completed: 'Nodes kept for reporting until the batch is cleaned up',
  failed: 'Kept until an operator requeues or deletes it',
};

/** A state's configuration: its row's step, its table edges; final where its row says so. */
function stateConfig(row: (typeof jobStateTable)[number]) {
  const on = transitionsFrom(row.state);
  const description = descriptions[row.state];
  return {
    ...(description ? { description } : {}),
    ...('step' in row ? { invoke: stepInvoke(row.step) } : {}),
    ...('final' in row ? { type: 'final' as const } : { on }),
  };
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
 *
 * The edges are job.table.ts's, written once there: each state's transitions are built from its
 * rows (transitionOf says what each kind of edge records) and each working state invokes the
 * step its row in states.ts names. The table is the lifecycle; this file adds its behaviour.
 */
function buildJobMachine(initial: JobState) {
  const states = Object.fromEntries(jobStateTable.map((row) => [row.state, stateConfig(row)]));
  return jobSetup.createMachine({
    id: 'job',
    initial,
    context: ({ input }) => createJobContext(input),
    // Built from the table, the config is not literal; its parts are typed where they are made.
    states: states as Record<JobState, object>,
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
