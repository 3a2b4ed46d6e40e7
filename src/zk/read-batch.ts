/**
 * Reads of several callers sent as one multiRead: the `getDataMany` calls made in one turn of the
 * event loop (one socket read answers many requests, and each answer's continuation reads next)
 * go to ZooKeeper as one request. A multiRead is not atomic: each path gets its own result, data
 * or error, so merging changes nothing a caller sees but the number of requests. ZooKeeper's cost
 * and the client's are per request far more than per path (a request is a packet, a socket write,
 * a pass through the server's pipeline and a promise settled), so an engine whose acquisitions
 * read each job's nodes (one multiRead a job) reads several jobs for about the price of one.
 */
import { TurnBatcher } from './turn-batcher.js';

/** One caller's paths and how to answer it. */
interface Waiting<R> {
  paths: readonly string[];
  bytes: number;
  resolve(results: R[] | null): void;
  reject(err: unknown): void;
}

/**
 * A merged request stays far below ZooKeeper's 1 MiB request limit, and its answer (a node's data
 * each) far below what one reply should carry: a caller alone may be bigger, and is sent alone.
 */
const MAX_PATHS = 512;
const MAX_BYTES = 128 * 1024;

export class ReadBatch<R> {
  private readonly batcher: TurnBatcher<Waiting<R>>;
  /** Requests sent, and callers answered by them: `callers / requests` is the mean merge. */
  requests = 0;
  callers = 0;

  /**
   * @param send one multiRead of `paths`: one result per path in order, or null when the server
   *   has no multiRead (every caller is answered null then, and reads its own way).
   */
  constructor(
    private readonly send: (paths: readonly string[]) => Promise<R[] | null>,
    limits = { paths: MAX_PATHS, bytes: MAX_BYTES },
  ) {
    this.batcher = new TurnBatcher<Waiting<R>>(
      (group) => void this.sendGroup(group),
      [
        { of: (w) => w.paths.length, max: limits.paths },
        { of: (w) => w.bytes, max: limits.bytes },
      ],
    );
  }

  /** Resolves with one result per path, in order; rejects as the request carrying them would. */
  read(paths: readonly string[]): Promise<R[] | null> {
    return new Promise<R[] | null>((resolve, reject) => {
      const bytes = paths.reduce((sum, path) => sum + path.length + 8, 0);
      this.batcher.add({ paths, bytes, resolve, reject });
    });
  }

  private async sendGroup(group: ReadonlyArray<Waiting<R>>): Promise<void> {
    this.requests++;
    this.callers += group.length;
    const all = group.length === 1 ? group[0]!.paths : group.flatMap((w) => w.paths);
    try {
      const results = await this.send(all);
      let at = 0;
      for (const w of group) {
        w.resolve(results === null ? null : results.slice(at, at + w.paths.length));
        at += w.paths.length;
      }
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }
}
