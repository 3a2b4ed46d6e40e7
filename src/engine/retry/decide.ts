import { failureMessage, type RetryLater } from '../../../machines/index.js';
import { currentRetry, type JobRetry, type RetryHistoryEntry } from '../../queue/jobs/retry-record.js';
import { classifyFailure } from './classify.js';
import { delayAfter, type RetryRule } from './policy.js';

/** A transient failure to be tried again: the job machine maps it to `step.retry` (machines/step-actor.ts). */
export class RetryLaterError extends Error implements RetryLater {
  constructor(
    message: string,
    readonly retryAt: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'RetryLaterError';
  }
}

/** What a step's failure comes to under its retry policy. */
export interface RetryDecision {
  /** The record the commit writes with the job (`/jobs/JID/retry`). */
  record: Omit<JobRetry, 'status_version'>;
  /** The error the machine sees: a RetryLaterError (the job waits), or the failure (the job fails). */
  error: Error;
  /** How long the job waits, ms, when it does. */
  retryInMs?: number;
}

export interface FailureArgs {
  /** The job as taken: its state, status version and the record of earlier failures. */
  job: { status: string; statusVersion: number; retry?: JobRetry };
  error: unknown;
  rule: RetryRule;
  now: Date;
  /** The engine that ran the attempt. */
  engine?: string;
  /** In [0, 1): the jitter's draw. */
  random: number;
}

/**
 * Applies the retry policy to a step's failure: a transient failure with attempts left waits
 * (its next attempt time from the rule's backoff); a permanent one, or the last attempt allowed,
 * fails the job. Either way the failure is recorded with its class, code and the count so far.
 */
export function decideFailure(args: FailureArgs): RetryDecision {
  const { job, error, rule, now } = args;
  const { class: failureClass, code } = classifyFailure(error);
  const message = failureMessage(error);
  const earlier = currentRetry(job.retry, job);
  const counted = earlier?.state === job.status ? earlier : undefined;
  const failures = (counted?.failures ?? 0) + (failureClass === 'transient' ? 1 : 0);
  const entry: RetryHistoryEntry = {
    at: now.toISOString(),
    class: failureClass,
    code,
    message,
    ...(args.engine ? { engine: args.engine } : {}),
  };
  const base = {
    state: job.status,
    class: failureClass,
    code,
    message,
    failures,
    limit: rule.attempts,
    history: [...(counted?.history ?? []), entry],
  };
  if (failureClass === 'transient' && failures < rule.attempts) {
    const waitMs = delayAfter(rule, failures, args.random);
    const at = new Date(now.getTime() + waitMs).toISOString();
    const said =
      `transient failure (${code}), attempt ${failures} of ${rule.attempts}: ${message}; ` +
      `next attempt at ${at}`;
    return {
      record: { ...base, next_attempt: at },
      error: new RetryLaterError(said, at, { cause: error }),
      retryInMs: waitMs,
    };
  }
  const why =
    failureClass === 'transient'
      ? `${message} (transient failure ${code}; gave up after ${failures} attempts)`
      : message;
  return { record: base, error: new Error(why, { cause: error }) };
}
