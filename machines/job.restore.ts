import { merrittJobLifecycle, type JobCreationEvent } from './job.lifecycle.js';
import type { JobMachine } from './job.machine.js';
import type { JobContext, JobEvent, JobInput, StoredJob } from './job.types.js';
import type { TransitionResult, ValidTransition } from './next-state.js';
import type { JobState, JobWorkingState } from './states.js';

// Merritt's job lifecycle by name, for code and tests that work with it alone. The engine, the
// queue and the surfaces take a JobLifecycle instead, so they run any lifecycle they are given.

/**
 * The state and context a new job is written with: `job.created` gives pending,
 * `job.rejected` gives failed with its message ((none) → failed, seed 001).
 */
export function newJobState(
  input: JobInput,
  event: JobCreationEvent = { type: 'job.created' },
): ValidTransition<JobState, JobContext> {
  return merrittJobLifecycle.newState(input, event) as ValidTransition<JobState, JobContext>;
}

/**
 * Where `event` takes a job stored in `stored.status`, and its context there; or
 * INVALID_TRANSITION naming the state and event. Pure: the store validates and computes what
 * to write with this, so the rules live only in the machine.
 */
export function nextJobState(stored: StoredJob, event: JobEvent): TransitionResult<JobState, JobContext> {
  return merrittJobLifecycle.next(stored, event) as TransitionResult<JobState, JobContext>;
}

/** Whether `event` is allowed for a job stored in `stored.status`. */
export function canJob(stored: StoredJob, event: JobEvent): boolean {
  return nextJobState(stored, event).ok;
}

/**
 * What an engine needs to run a stored job from where it is:
 * `createActor(machine.provide({ actors }), { input })`. Starting the actor enters the stored
 * state, so that state's step runs (a restored resolveState snapshot would not start it).
 */
export function restoreJob(stored: StoredJob): { machine: JobMachine; input: JobContext } {
  // A lifecycle hands any machine back; Merritt's is built by buildJobMachine. Said here, not
  // left to the compiler: whether AnyStateMachine passes for JobMachine depended on the order
  // the compiler met the files in.
  const { machine, input } = merrittJobLifecycle.restore(stored);
  return { machine: machine as JobMachine, input };
}

/** The working state a failed job resumes at, given its `last_successful_status`; undefined when none. */
export function resumeStateAfter(lastSuccessfulStatus: string | null): JobWorkingState | undefined {
  return merrittJobLifecycle.resumeAfter(lastSuccessfulStatus) as JobWorkingState | undefined;
}
