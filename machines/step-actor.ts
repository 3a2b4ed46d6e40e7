import { fromPromise } from 'xstate';

/**
 * Thrown when a machine runs a step whose implementation was never supplied through
 * `machine.provide({ actors })`. It is a wiring bug, not a job failure, so the machines
 * rethrow it instead of recording it as the job's message (see `failureMessage`).
 */
export class ActorNotProvidedError extends Error {
  readonly code = 'ACTOR_NOT_PROVIDED';

  constructor(readonly actor: string) {
    super(`actor "${actor}" was not provided; supply it with machine.provide({ actors: { ${actor} } })`);
    this.name = 'ActorNotProvidedError';
  }
}

/**
 * The placeholder a machine declares for a step in `setup`: typed like the real step, so
 * `provide` is type-checked against it, and failing with ActorNotProvidedError when run.
 */
export function notProvided<TOutput, TInput>(actor: string) {
  return fromPromise<TOutput, TInput>(() => Promise.reject(new ActorNotProvidedError(actor)));
}

/**
 * The message a failed step leaves on its item (the status node's `message`).
 * A missing implementation is rethrown, which stops the actor with an error: a machine
 * must never mark real work failed because the process was wired wrongly.
 */
export function failureMessage(error: unknown): string {
  assertProvided(error);
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** Rethrows a missing-implementation error; used by steps whose errors are not failures (estimate, provision). */
export function assertProvided(error: unknown): void {
  if (error instanceof ActorNotProvidedError) throw error;
}

/**
 * A step error that asks for another attempt later instead of a failure: a transient failure its
 * retry policy allows to be tried again (src/engine/retry decides and wraps the step's error).
 * The machine maps it to `step.retry`; any other error fails the job.
 */
export interface RetryLater {
  readonly retryAt: string;
  readonly message: string;
}

/** The event of a job that waits for its step's next attempt (job.types.ts). */
export const STEP_RETRY = 'step.retry';

/** The retry an error asks for, if it is one (see RetryLater). */
export function retryLaterOf(error: unknown): RetryLater | undefined {
  if (typeof error !== 'object' || error === null || !('retryAt' in error)) return undefined;
  const { retryAt, message } = error as { retryAt: unknown; message: unknown };
  return typeof retryAt === 'string' && typeof message === 'string' ? { retryAt, message } : undefined;
}
