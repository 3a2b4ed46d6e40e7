import pRetry from 'p-retry';

/**
 * How a call is retried. The waits start at `delayMs` and grow by `factor` (1: always the same),
 * capped at `maxDelayMs`; with `jitter` each wait is drawn between half of it and all of it, so
 * workers that failed together spread out.
 */
export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** The wait before the first retry (its upper bound with jitter). */
  delayMs: number;
  /** Default 2 (exponential). */
  factor?: number;
  /** Default none. */
  maxDelayMs?: number;
  jitter?: boolean;
}

/** A retried call: its policy, what ends it early, and what its caller sees when it gives up. */
export interface RetryOptions extends RetryPolicy {
  /** Aborts the call and any wait at once; the caller then sees the signal's reason. */
  signal: AbortSignal;
  /** Whether the failure of attempt `attempt` is worth another attempt (asked while retries are left). */
  retryable(failure: unknown, attempt: number): boolean;
  /** What the caller sees when the last attempt failed (default: that failure itself). */
  gaveUp?(failure: unknown, attempts: number): unknown;
}

/**
 * A failed attempt as p-retry sees it: our own `retryable` decides, not p-retry's rules (it never
 * retries a TypeError, and undici throws some of those for network failures).
 */
class AttemptFailed extends Error {
  constructor(
    readonly failure: unknown,
    readonly attempt: number,
  ) {
    super('attempt failed');
  }
}

/**
 * Runs `attempt` (numbered from 1) until it succeeds, `retryable` says a failure will not pass,
 * or `retries` more attempts have failed, waiting between attempts as the policy says. The
 * loop, the backoff and the abortable waits are p-retry's; which failures retry and what the
 * caller finally sees (its code, message and attempt count) are the caller's.
 */
export async function withRetry<T>(options: RetryOptions, attempt: (n: number) => Promise<T>): Promise<T> {
  const { signal } = options;
  const jitter = options.jitter ?? false;
  try {
    return await pRetry(
      async (n) => {
        try {
          return await attempt(n);
        } catch (err) {
          throw new AttemptFailed(err, n);
        }
      },
      {
        retries: Math.max(0, options.retries),
        factor: options.factor ?? 2,
        // p-retry's randomize multiplies a wait by 1 to 2: half the wait, so half to all of it.
        minTimeout: jitter ? options.delayMs / 2 : options.delayMs,
        maxTimeout: options.maxDelayMs ?? Number.POSITIVE_INFINITY,
        randomize: jitter,
        signal,
        shouldRetry: ({ error }) =>
          !signal.aborted &&
          error instanceof AttemptFailed &&
          options.retryable(error.failure, error.attempt),
      },
    );
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (!(err instanceof AttemptFailed)) throw err;
    throw options.gaveUp ? options.gaveUp(err.failure, err.attempt) : err.failure;
  }
}
