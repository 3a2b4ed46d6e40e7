import { timeoutError, toZkError, type ZkError } from './errors.js';

/** Node-style completion the library calls once (or never, when the server is silent). */
export type Done<T> = (err: unknown, value?: T) => void;

export interface RequestLabel {
  operation: string;
  path: string | undefined;
}

interface Pending {
  label: RequestLabel;
  fail(err: ZkError): void;
}

/** Library codes that mean "no answer from the server" rather than an answer. */
const NO_ANSWER_CODES = new Set([-4, -112]);

/**
 * Every request in flight, each with a timeout: the library has none, and a request to a frozen
 * server would hang forever. The session can fail them all at once when it stops trusting the link.
 */
export class InFlightRequests {
  private readonly pending = new Set<Pending>();

  /** @param onAnswer called whenever the server answered (success or a server-side error). */
  constructor(private readonly onAnswer: () => void) {}

  get size(): number {
    return this.pending.size;
  }

  /**
   * Starts a request; settles with its answer, TIMEOUT after `timeoutMs`, or whatever
   * {@link failAll} says. Late answers after that are ignored.
   */
  run<T>(label: RequestLabel, timeoutMs: number, start: (done: Done<T>) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (err: ZkError | undefined, value?: T): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.pending.delete(entry);
        if (err) reject(err);
        else resolve(value as T);
      };
      const entry: Pending = { label, fail: (err) => finish(err) };
      const timer = setTimeout(() => finish(timeoutError(label.operation, label.path, timeoutMs)), timeoutMs);
      this.pending.add(entry);
      try {
        start((err, value) => {
          if (!settled && !isNoAnswer(err)) this.onAnswer();
          finish(err ? toZkError(err, label.operation, label.path) : undefined, value);
        });
      } catch (err) {
        // The library asserts its arguments synchronously (bad path, data over 1 MiB).
        finish(toZkError(err, label.operation, label.path));
      }
    });
  }

  /** Fails every request in flight with the error `make` builds for it; returns how many. */
  failAll(make: (label: RequestLabel) => ZkError): number {
    const all = [...this.pending];
    for (const entry of all) entry.fail(make(entry.label));
    return all.length;
  }
}

function isNoAnswer(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' && NO_ANSWER_CODES.has(code);
}
