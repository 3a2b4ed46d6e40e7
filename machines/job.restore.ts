import { pureInitialSnapshot, pureTransition } from './inert.js';
import { createJobContext } from './job.context.js';
import { jobMachine, jobMachineAt, type JobMachine } from './job.machine.js';
import type { JobContext, JobEvent, JobInput, StoredJob } from './job.types.js';
import { nextState, type TransitionResult, type ValidTransition } from './next-state.js';
import type { JobState } from './states.js';

/** How a job comes into existence: normally pending; failed at once when it can never run (001). */
export type JobCreationEvent = { type: 'job.created' } | { type: 'job.rejected'; message: string };

function contextOf(stored: StoredJob): JobContext {
  const { status: _status, ...context } = stored;
  return createJobContext(context);
}

/**
 * The state and context a new job is written with: `job.created` gives pending,
 * `job.rejected` gives failed with its message ((none) → failed, seed 001).
 */
export function newJobState(
  input: JobInput,
  event: JobCreationEvent = { type: 'job.created' },
): ValidTransition<JobState, JobContext> {
  let snapshot = pureInitialSnapshot(jobMachine, input);
  if (event.type === 'job.rejected') snapshot = pureTransition(jobMachine, snapshot, event);
  return { ok: true, from: null, to: snapshot.value, context: snapshot.context };
}

/**
 * Where `event` takes a job stored in `stored.status`, and its context there; or
 * INVALID_TRANSITION naming the state and event. Pure: the store validates and computes what
 * to write with this, so the rules live only in the machine.
 */
export function nextJobState(stored: StoredJob, event: JobEvent): TransitionResult<JobState, JobContext> {
  return nextState('job', jobMachine, stored.status, contextOf(stored), event);
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
  return { machine: jobMachineAt(stored.status), input: contextOf(stored) };
}
