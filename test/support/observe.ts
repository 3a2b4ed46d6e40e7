import type { Observable, Subscription } from 'rxjs';

/** Records what an observable emits and lets a test wait for an emission that matches. */
export class Recorder<T> {
  readonly values: T[] = [];
  error: unknown;
  completed = false;
  private readonly subscription: Subscription;
  private waiters: { match: (v: T) => boolean; resolve: (v: T) => void }[] = [];

  constructor(source: Observable<T>) {
    this.subscription = source.subscribe({
      next: (value) => {
        this.values.push(value);
        this.waiters = this.waiters.filter((w) => {
          if (!w.match(value)) return true;
          w.resolve(value);
          return false;
        });
      },
      error: (err: unknown) => (this.error = err),
      complete: () => (this.completed = true),
    });
  }

  /** Resolves with the first value (already seen or future) that matches; rejects after `ms`. */
  next(match: (value: T) => boolean, ms = 10_000): Promise<T> {
    const seen = this.values.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching emission within ${ms} ms; saw ${JSON.stringify(this.values)}`)),
        ms,
      );
      this.waiters.push({
        match,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
      });
    });
  }

  /** Forgets what was seen so far (to wait for something new). */
  clear(): void {
    this.values.length = 0;
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}
