import { pino } from 'pino';
import { createLogger } from '../logger.js';
import { retryWhileUnavailable } from '../zk/index.js';

/**
 * How long the bench keeps trying one request while ZooKeeper does not answer: a server writing a
 * snapshot of a big tree on a loaded machine stalled for 25 s.
 */
const STALL_LIMIT_MS = 300_000;

/** Retries are said on stderr (stdout carries the results). */
const log = createLogger('warn', pino.destination({ fd: 2, sync: true })).child({ component: 'bench' });

/**
 * Runs one of the bench's own ZooKeeper requests (or a small idempotent group of them), trying it
 * again when its answer was lost, instead of ending the whole run.
 */
export function persist<T>(step: string, attempt: () => Promise<T>): Promise<T> {
  return retryWhileUnavailable(attempt, { step, log, until: Date.now() + STALL_LIMIT_MS });
}
