import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { WatcherAdapters, aclFor, toData, toLibMode, toZkStat } from './convert.js';
import { ZkError, describeRequest, isZkError, kindOfServerCode } from './errors.js';
import { ChildNames } from './child-names.js';
import {
  LIB_OP_ERROR,
  getChildrenRaw,
  multiReadData,
  type LibClient,
  type LibStat,
  type RawChildren,
  type RawReadResult,
} from './library.js';
import { assertRequestFits } from './limits.js';
import { addOps, interpretResults, validateOps, type RawOpResult } from './multi.js';
import { pathPrefixes, validatePath } from './paths.js';
import { ReadBatch } from './read-batch.js';
import { deleteRecursive } from './recursive-delete.js';
import type { Done } from './requests.js';
import { endFailed, requestSpan } from './tracing.js';
import type { Session } from './session.js';
import type { CreateMode, Op, OpResult, SessionEvent, WatchCallback, ZkStat } from './types.js';

/** A node's data (undefined when it has none) and stat. */
export interface NodeData {
  data: Buffer | undefined;
  stat: ZkStat;
}

function readResult(path: string, raw: RawReadResult | undefined): NodeData | undefined {
  if (!raw)
    throw new ZkError('UNKNOWN', { operation: 'multiRead', path, message: `multiRead ${path}: no result` });
  if (raw.type === LIB_OP_ERROR) {
    const kind = kindOfServerCode(raw.err ?? 0);
    if (kind === 'NO_NODE') return undefined;
    throw new ZkError(kind, { operation: 'multiRead', path });
  }
  if (!raw.stat)
    throw new ZkError('UNKNOWN', { operation: 'multiRead', path, message: `multiRead ${path}: no stat` });
  return { data: raw.data ?? undefined, stat: toZkStat(raw.stat) };
}

/** Settings a ZkClient applies to each request. */
export interface RequestSettings {
  requestTimeoutMs: number;
  acl: 'open' | 'creator';
  chroot: string | undefined;
  log: Logger;
}

/**
 * The promise API over this process's one ZooKeeper session. Make it with `connectZk`.
 *
 * Every request has a timeout (TIMEOUT: outcome unknown). When the session is lost (`expired` on
 * `session$`) a new session is made: ephemerals of the old one are gone, and so are the watches
 * registered through it; they never fire. Re-read and re-watch on the next `connected`.
 * Within one session, watches survive a reconnect (`disconnected` → `connected`, same `sessionId`).
 */
export class ZkClient {
  /** Session states; replays the current one to new subscribers; completes on `close()`. */
  readonly session$: Observable<SessionEvent>;
  private readonly watchers: WatcherAdapters;

  /** @internal use `connectZk`. */
  constructor(
    private readonly session: Session,
    private readonly settings: RequestSettings,
  ) {
    this.session$ = session.events.asObservable();
    this.watchers = new WatcherAdapters(settings.log);
  }

  private observer: ((operation: string, ms: number, outcome: string) => void) | undefined;

  /** Reports every request's latency and outcome to `observer` (metrics); undefined stops it. */
  observeRequests(observer: ((operation: string, ms: number, outcome: string) => void) | undefined): void {
    this.observer = observer;
  }

  /** Hex id of the current session (compare with `ZkStat.ephemeralOwner`); `'0'` while there is none. */
  get sessionId(): string {
    return this.session.sessionId;
  }

  /** The session timeout in force (negotiated by the server), in milliseconds. */
  get sessionTimeoutMs(): number {
    return this.session.timeoutMs;
  }

  /** True while requests are being answered (not disconnected, suspended, expired or closed). */
  get isConnected(): boolean {
    return this.session.state === 'connected';
  }

  /** Creates a node; returns its path relative to the chroot, with the sequence suffix if sequential. */
  create(path: string, data?: Buffer | string | null, mode?: CreateMode): Promise<string> {
    const bytes = toData(data);
    return this.call<string>(
      'create',
      path,
      (zk, done) => {
        const acl = aclFor(this.settings.acl);
        if (bytes) zk.create(path, bytes, acl, toLibMode(mode), done);
        else zk.create(path, acl, toLibMode(mode), done);
      },
      bytes,
    );
  }

  /** Data (undefined when the node has none) and stat; `watch` fires once on change or delete. */
  async getData(path: string, watch?: WatchCallback): Promise<{ data: Buffer | undefined; stat: ZkStat }> {
    const watcher = this.watchers.adapt(watch);
    const [data, stat] = await this.call<[Buffer | undefined, LibStat]>('getData', path, (zk, done) => {
      const callback = (err: unknown, value: Buffer, s: LibStat): void => done(err, [value, s]);
      if (watcher) zk.getData(path, watcher, callback);
      else zk.getData(path, callback);
    });
    return { data, stat: toZkStat(stat) };
  }

  /**
   * Reads several nodes in one request (ZooKeeper 3.6+ multiRead): one result per path, in
   * order, undefined for a node that does not exist. Any other failure of one read (NO_AUTH…)
   * rejects the whole call, naming that path. The calls of one turn share a request (see
   * ReadBatch); each is answered and refused on its own. Against a server without multiRead
   * (older than 3.6) the nodes are read one request each, and this client stops trying multiRead.
   */
  async getDataMany(paths: readonly string[]): Promise<Array<NodeData | undefined>> {
    if (paths.length === 0) return [];
    if (this.multiReadMissing) return Promise.all(paths.map((path) => this.getDataIfExists(path)));
    // Checked here, so a bad path or an oversized read is this caller's error alone, never that
    // of the callers its read is merged with.
    for (const path of paths) validatePath(path, 'multiRead');
    assertRequestFits(
      'multiRead',
      paths.map((path) => ({ path, data: undefined })),
      this.settings.chroot,
    );
    const raw = await this.reads.read(paths);
    if (raw === null) {
      if (!this.multiReadMissing)
        this.settings.log.warn(
          'the ZooKeeper server has no multiRead (older than 3.6): reading nodes one by one',
        );
      this.multiReadMissing = true;
      return this.getDataMany(paths);
    }
    return paths.map((path, i) => readResult(path, raw[i]));
  }

  /**
   * getDataMany calls of one turn, merged into one multiRead (see ReadBatch). Each caller's paths
   * were checked in getDataMany; a merged request stays within ReadBatch's limits (128 KB of
   * paths), far below the request limit, and a bigger caller goes alone.
   */
  private readonly reads = new ReadBatch<RawReadResult>((paths) =>
    this.call<RawReadResult[] | null>('multiRead', undefined, (zk, done) => multiReadData(zk, paths, done)),
  );

  /** Requests the merged reads took, and the getDataMany calls they answered. */
  get readMerges(): { requests: number; callers: number } {
    return { requests: this.reads.requests, callers: this.reads.callers };
  }

  private multiReadMissing = false;

  private async getDataIfExists(path: string): Promise<NodeData | undefined> {
    try {
      return await this.getData(path);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return undefined;
      throw err;
    }
  }

  /** Sets data if `version` matches (-1 or undefined: any). `null` stores empty data. */
  async setData(path: string, data: Buffer | string | null, version = -1): Promise<ZkStat> {
    const bytes = toData(data) ?? Buffer.alloc(0);
    const stat = await this.call<LibStat>(
      'setData',
      path,
      (zk, done) => zk.setData(path, bytes, version, done),
      bytes,
    );
    return toZkStat(stat);
  }

  /** The node's stat, or undefined when it does not exist; `watch` fires on create, change or delete. */
  async exists(path: string, watch?: WatchCallback): Promise<ZkStat | undefined> {
    const watcher = this.watchers.adapt(watch);
    const stat = await this.call<LibStat | null>('exists', path, (zk, done) => {
      if (watcher) zk.exists(path, watcher, done);
      else zk.exists(path, done);
    });
    return stat ? toZkStat(stat) : undefined;
  }

  /**
   * How many children the node has, from its stat: one small reply, however many children (no
   * list is read). Undefined when there is no node.
   */
  async childCount(path: string): Promise<number | undefined> {
    return (await this.exists(path))?.numChildren;
  }

  /** Child names (unsorted); `watch` fires once when a child is added or removed, or the node deleted. */
  getChildren(path: string, watch?: WatchCallback): Promise<string[]> {
    const watcher = this.watchers.adapt(watch);
    return this.call<string[]>('getChildren', path, (zk, done) => {
      if (watcher) zk.getChildren(path, watcher, done);
      else zk.getChildren(path, done);
    });
  }

  /**
   * Child names left undecoded until walked ({@link ChildNames.each}), with the folder's stat:
   * for folders that may be too big to decode in one turn. `watch` as for {@link getChildren}.
   */
  async getChildNames(path: string, watch?: WatchCallback): Promise<ChildNames> {
    const watcher = this.watchers.adapt(watch);
    const raw = await this.call<RawChildren>('getChildren', path, (zk, done) =>
      getChildrenRaw(zk, path, watcher, done),
    );
    return new ChildNames(raw.buffer, raw.start, raw.count, toZkStat(raw.stat));
  }

  /** Deletes a node if `version` matches (-1 or undefined: any). */
  delete(path: string, version = -1): Promise<void> {
    return this.call<void>('delete', path, (zk, done) => zk.remove(path, version, done));
  }

  /** Deletes a node and its whole subtree, any depth; a missing node is fine. */
  deleteRecursive(path: string): Promise<void> {
    return deleteRecursive(this, path);
  }

  /** Creates `path` and any missing ancestors as persistent empty nodes; existing ones are fine. */
  async mkdirp(path: string): Promise<void> {
    validatePath(path, 'mkdirp');
    if (await this.exists(path)) return;
    for (const prefix of pathPrefixes(path)) {
      try {
        await this.create(prefix);
      } catch (err) {
        if (!isZkError(err, 'NODE_EXISTS')) throw err;
      }
    }
  }

  /**
   * Runs `ops` as one ZooKeeper transaction: all apply or none does. A refusal throws
   * ZkTransactionError naming the failed op; TIMEOUT or CONNECTION_LOSS leave the outcome unknown.
   */
  async multi(ops: Op[]): Promise<OpResult[]> {
    if (ops.length === 0) return [];
    const raw = await this.call<RawOpResult[]>(
      'multi',
      undefined,
      (zk, done) => {
        validateOps(ops, this.settings.chroot);
        const transaction = zk.transaction();
        addOps(transaction, ops, this.settings.acl);
        transaction.commit((err: unknown, results: unknown) => {
          // A refused multi comes with per-op results; anything else is a request failure.
          if (Array.isArray(results)) done(undefined, results as RawOpResult[]);
          else done(err ?? new Error('multi answered without results'));
        });
      },
      undefined,
      ops,
    );
    return interpretResults(ops, raw);
  }

  /** Closes the session (its ephemerals are deleted) and completes `session$`. */
  close(): Promise<void> {
    return this.session.close();
  }

  /**
   * Sends one request through the current library client with the request timeout.
   * Validation errors reject the promise as BAD_ARGUMENTS; they never escape as throws.
   */
  private call<T>(
    operation: string,
    path: string | undefined,
    start: (zk: LibClient, done: Done<T>) => void,
    data?: Buffer,
    ops?: readonly Op[],
  ): Promise<T> {
    if (this.session.isClosed) {
      return Promise.reject(
        new ZkError('CLOSED', {
          operation,
          path,
          message: `${describeRequest(operation, path)}: CLOSED, the client was closed`,
        }),
      );
    }
    const label = { operation, path };
    const request = this.session.requests.run<T>(label, this.settings.requestTimeoutMs, (done) => {
      if (path !== undefined) {
        validatePath(path, operation);
        assertRequestFits(operation, [{ path, data }], this.settings.chroot);
      }
      start(this.session.current, done);
    });
    const span = requestSpan(operation, path, data, ops);
    const observe = this.observer;
    if (!observe && !span) return request;
    const started = performance.now();
    request.then(
      () => {
        observe?.(operation, performance.now() - started, 'ok');
        span?.end();
      },
      (err: unknown) => {
        const outcome = isZkError(err) ? err.kind : 'error';
        observe?.(operation, performance.now() - started, outcome);
        if (span) endFailed(span, outcome, err);
      },
    );
    return request;
  }
}
