/**
 * The documented state names of each lifecycle (DESIGN.md §3), in the order the seeds list them.
 * Machine states use these lowercase names; ZooKeeper's status nodes use the wire names below.
 */
export const jobStates = [
  'pending',
  'held',
  'estimating',
  'provisioning',
  'downloading',
  'processing',
  'recording',
  'notify',
  'completed',
  'failed',
  'deleted',
] as const;
export type JobState = (typeof jobStates)[number];

export const batchStates = [
  'pending',
  'held',
  'processing',
  'reporting',
  'completed',
  'failed',
  'update-reporting',
  'deleted',
] as const;
export type BatchState = (typeof batchStates)[number];

export const accessStates = ['pending', 'processing', 'completed', 'failed', 'deleted'] as const;
export type AccessState = (typeof accessStates)[number];

/** The job states in which a step runs; a requeued job resumes at one of them. */
export const jobWorkingStates = [
  'estimating',
  'provisioning',
  'downloading',
  'processing',
  'recording',
  'notify',
] as const satisfies readonly JobState[];
export type JobWorkingState = (typeof jobWorkingStates)[number];

const WORKING: ReadonlySet<string> = new Set(jobWorkingStates);

/** Whether a step runs in `state` (one of {@link jobWorkingStates}). */
export function isJobWorkingState(state: string): state is JobWorkingState {
  return WORKING.has(state);
}
