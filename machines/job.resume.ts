import type { JobState, JobWorkingState } from './states.js';

/**
 * Where a requeued job resumes: the step after `last_successful_status` (seed 003,
 * "restart at an appropriate state based on the last_successful_state").
 *
 * Decisions where the seeds are silent:
 * - `null`, `pending` and `held` resume at `estimating`: no step has succeeded yet.
 * - `notify` resumes at `notify`, not `completed`. A failed job cannot have notify as its
 *   last success (a notify failure keeps `recording`, a notify success completes the job),
 *   so such a record is foreign or damaged; re-sending the notification is the safe reading,
 *   and failed → completed is not a documented edge.
 * - `completed`, `failed` and `deleted` are never written as a last success; a record that
 *   holds one starts over at `estimating`. Every step is idempotent, so this is only slower.
 */
const resumeAfter: Readonly<Record<JobState, JobWorkingState>> = {
  pending: 'estimating',
  held: 'estimating',
  estimating: 'provisioning',
  provisioning: 'downloading',
  downloading: 'processing',
  processing: 'recording',
  recording: 'notify',
  notify: 'notify',
  completed: 'estimating',
  failed: 'estimating',
  deleted: 'estimating',
};

/** The working state a failed job resumes at, given its `last_successful_status`. */
export function resumeStateAfter(lastSuccessfulStatus: JobState | null): JobWorkingState {
  return lastSuccessfulStatus === null ? 'estimating' : resumeAfter[lastSuccessfulStatus];
}
