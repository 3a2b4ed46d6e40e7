import { Observable, type Subscription } from 'rxjs';
import type { ZkClient, WatchCallback } from '../zk/index.js';
import { isZkError } from '../zk/index.js';

/** How long to wait before reading again after a retryable failure (timeout, connection loss). */
const RETRY_DELAY_MS = 1000;

export interface WatchedOptions<T> {
  /**
   * How long to wait after a watch fires before reading again, given the last value. Changes
   * that happen meanwhile coalesce into that one read (the watch is one-shot), which bounds the
   * cost of re-reading a big folder that changes often.
   */
  delayAfterFire?: (last: T) => number;
  /**
   * A fire after a quiet spell (the last read at least `delayAfterFire` ago) is read at once: new
   * work in an idle folder is seen without the wait. Off by default: on every job state folder of
   * a busy engine it cost 2-3 % of the no-op throughput (measured, docs/performance.md).
   */
  quietAtOnce?: boolean;
  /**
   * Whether anyone needs a fresh value now (a consumer with a free slot). While it is false a
   * fire only marks the value stale; the read (and the watch it re-arms) waits until it is true
   * again. Reads after a (re)connection are never held back.
   */
  demand?: Observable<boolean>;
}

/**
 * A cold observable over a one-shot ZooKeeper watch. Each emission is the current value, read
 * afresh: on subscribe (once the session is connected), after every watch fire (fires coalesce
 * and can be missed, so a fire only means "read again"), and after every (re)connection,
 * including a brand-new session whose watches are gone. Every read re-arms the watch.
 * Retryable failures are retried; others end the stream with the error. Unsubscribing stops
 * re-arming: a watch that fires afterwards is ignored.
 */
export function watched$<T>(
  zk: ZkClient,
  read: (watch: WatchCallback) => Promise<T>,
  options: WatchedOptions<T> = {},
): Observable<T> {
  return new Observable<T>((subscriber) => {
    let stopped = false;
    let reading = false;
    let again = false;
    let retryTimer: NodeJS.Timeout | undefined;
    let fireTimer: NodeJS.Timeout | undefined;
    let last: { value: T } | undefined;
    /** When the last read answered (and re-armed the watch), performance.now(). */
    let lastReadAt = Number.NEGATIVE_INFINITY;
    let wanted = true;
    let stale = false;

    const readOnce = async (): Promise<void> => {
      try {
        const value = await read(watch);
        last = { value };
        lastReadAt = performance.now();
        if (!stopped) subscriber.next(value);
      } catch (err) {
        if (stopped) return;
        if (isZkError(err, 'CLOSED')) return; // session$ completes this stream
        if (isZkError(err) && err.retryable) {
          retryTimer ??= setTimeout(retry, RETRY_DELAY_MS);
          return;
        }
        subscriber.error(err);
      }
    };
    const run = async (): Promise<void> => {
      reading = true;
      do {
        again = false;
        await readOnce();
      } while (again && !stopped);
      reading = false;
    };
    function trigger(): void {
      if (stopped) return;
      if (reading) again = true;
      else void run();
    }
    function retry(): void {
      retryTimer = undefined;
      trigger();
    }
    /** A fire, acted on now when the value is wanted, else once it is. */
    function fired(): void {
      if (wanted) trigger();
      else stale = true;
    }
    const watch: WatchCallback = () => {
      const delay = last && options.delayAfterFire ? options.delayAfterFire(last.value) : 0;
      if (delay <= 0 || (options.quietAtOnce && performance.now() - lastReadAt >= delay)) return fired();
      fireTimer ??= setTimeout(() => {
        fireTimer = undefined;
        fired();
      }, delay);
    };
    const demand: Subscription | undefined = options.demand?.subscribe((now) => {
      wanted = now;
      if (wanted && stale) {
        stale = false;
        trigger();
      }
    });
    // session$ replays the current state: the first read happens at once when connected.
    const session = zk.session$.subscribe({
      next: (event) => {
        if (event.state === 'connected') trigger();
      },
      complete: () => subscriber.complete(),
    });
    return () => {
      stopped = true;
      session.unsubscribe();
      demand?.unsubscribe();
      if (retryTimer) clearTimeout(retryTimer);
      if (fireTimer) clearTimeout(fireTimer);
    };
  });
}
