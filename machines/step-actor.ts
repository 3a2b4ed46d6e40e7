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
