import type { Logger } from 'pino';
import { defer, firstValueFrom, fromEvent, mergeMap, race, retry, throwError, timer } from 'rxjs';
import { ZkError, isZkError } from './errors.js';

/** How {@link retryWhileUnavailable} tries again. */
export interface RetryOptions {
  /** Names the step in log lines and in the error given up with (`queue tree`, `engine registration`). */
  step: string;
  log: Logger;
  /** Epoch ms after which a retryable error is thrown instead of tried again; undefined: never give up. */
  until?: number;
  /** Stops at once, rejecting with the signal's reason (the process was asked to stop). */
  signal?: AbortSignal;
  /** Pause after the first failure, doubled after each next one up to `maxDelayMs` (250 ms, 5 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs `attempt` until it succeeds, trying again after every retryable ZooKeeper error (connection
 * lost, request timed out, session expired: the server may answer next time) with exponential
 * backoff and one log line per failed attempt. Any other error is thrown at once; so is a
 * retryable one once `until` has passed, saying how long and how often it was tried.
 *
 * `attempt` must be safe to run again after an outcome that is unknown (a create whose answer was
 * lost may have been applied).
 */
export function retryWhileUnavailable<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { step, log, until, signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const started = Date.now();
  const tries$ = defer(attempt).pipe(
    retry({
      delay: (err: unknown, count: number) => {
        if (!isZkError(err) || !err.retryable) return throwError(() => err);
        const left = until === undefined ? Number.POSITIVE_INFINITY : until - Date.now();
        if (left <= 0) return throwError(() => gaveUp(step, err, count, Date.now() - started));
        const retryInMs = Math.round(Math.min(left, backoffMs(count, options)));
        log.warn({ step, attempt: count, retryInMs, err }, 'ZooKeeper unavailable; trying again');
        return timer(retryInMs);
      },
    }),
  );
  if (!signal) return firstValueFrom(tries$);
  const aborted$ = fromEvent(signal, 'abort').pipe(mergeMap(() => throwError(() => signal.reason as Error)));
  return firstValueFrom(race(tries$, aborted$));
}

/** The pause before attempt `count + 1`: doubling, capped, with ±20 % jitter so processes spread out. */
function backoffMs(count: number, options: RetryOptions): number {
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 5000;
  return Math.min(max, base * 2 ** (count - 1)) * (0.8 + Math.random() * 0.4);
}

/** The last error, still retryable (ZooKeeper was unavailable), saying that this was the last try. */
function gaveUp(step: string, err: ZkError, attempts: number, ms: number): ZkError {
  return new ZkError(err.kind, {
    path: err.path,
    cause: err,
    message: `${step}: gave up after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${Math.round(ms / 1000)} s: ${err.message}`,
  });
}
