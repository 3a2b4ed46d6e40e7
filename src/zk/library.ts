/**
 * The one file that imports node-zookeeper-client, and the only one that reaches into its
 * internals (the library is pinned at 1.1.3; see DESIGN.md §6). `patches/` fixes what is broken
 * in it; on load, this module installs the in-tree wire code (`wire/`: codec, multiRead, child
 * lists decoded when read, one socket write per turn) into it.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import zookeeper from 'node-zookeeper-client';
import type { Client, Event, Stat, Transaction, State } from 'node-zookeeper-client';
import { installWire, wireProblems } from './wire/install.js';
import type { ChildListResponse } from './wire/child-list-response.js';
import type { ConnectionManagerClass, JuteModule, Specification, ZkLibrary } from './wire/library-shape.js';
import { multiReadRequest, serverLacksMultiRead } from './wire/multi-read.js';
import { collectsReplyChunks, dropsStaleReply, type ProbedManager } from './wire/fix-probes.js';

export type LibClient = Client;
export type LibEvent = Event;
export type LibStat = Stat;
export type LibTransaction = Transaction;
export type LibState = State;

/** The library's constants: ACL lists, create modes, watch event types, client states. */
export const { ACL, CreateMode, Event: LibEventTypes, State: LibStates } = zookeeper;

export interface LibClientOptions {
  sessionTimeoutMs: number;
  /** Upper bound of the random pause between reconnect rounds. */
  spinDelayMs: number;
  auth: { scheme: 'digest'; credentials: string } | undefined;
}

/** A new, unconnected library client with auth info registered (it is re-sent on every reconnect). */
export function createLibClient(connectString: string, options: LibClientOptions): LibClient {
  // retries: 0 — retrying is the caller's decision; the library would retry blindly on CONNECTION_LOSS.
  const client = zookeeper.createClient(connectString, {
    sessionTimeout: options.sessionTimeoutMs,
    spinDelay: options.spinDelayMs,
    retries: 0,
  });
  if (options.auth) client.addAuthInfo(options.auth.scheme, Buffer.from(options.auth.credentials));
  return client;
}

interface ClientInternals {
  connectionManager?: { socket?: Socket; state?: number; onSocketData?: (data: Buffer) => void };
}

/** ConnectionManager.STATES.CLOSED: the socket is gone and the library will not reconnect. */
const CONNECTION_CLOSED = -2;
/** ConnectionManager.STATES.CONNECTING: a connect request is out, no answer yet. */
const CONNECTION_CONNECTING = 1;
/** ConnectionManager.STATES.CONNECTED and CONNECTED_READ_ONLY: a session is answering. */
const CONNECTION_LIVE = new Set([2, 3]);

function internals(client: LibClient): ClientInternals['connectionManager'] {
  return (client as unknown as ClientInternals).connectionManager;
}

/**
 * Closes a library client and makes sure its socket goes away. `close()` sends closeSession and
 * waits for the server to hang up, which a frozen server never does; and it throws when called
 * between reconnect attempts (no socket yet). After `graceMs` the socket is destroyed.
 *
 * A client still connecting is cut off at once: once closing, the library reads the server's late
 * answer to its connect request as a reply header, takes part of the session id for an error
 * code and throws "Unknown code" from its socket handler, which ends the process (seen when a
 * frozen server thawed just after a connect attempt had timed out).
 */
export async function closeLibClient(client: LibClient, graceMs: number): Promise<void> {
  const manager = internals(client);
  const connecting = manager !== undefined && !CONNECTION_LIVE.has(manager.state ?? -1);
  try {
    client.close();
  } catch {
    // Between reconnect attempts there is no socket yet; one opened late is destroyed below.
  }
  if (manager && connecting) {
    // Sockets the library opens from now on (a reconnect already scheduled) read nothing.
    manager.onSocketData = () => undefined;
    manager.socket?.destroy();
  }
  const until = Date.now() + graceMs;
  while (internals(client)?.state !== CONNECTION_CLOSED && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const socket = internals(client)?.socket;
  if (socket && !socket.destroyed) socket.destroy();
}

/**
 * The socket of a connection attempt that is TCP-connected but has no answer to its connect
 * request yet. The library clears its connect timer on TCP connect, so if the server never
 * answers (seen after a restart under load) the attempt hangs until something destroys it.
 */
export function handshakeSocket(client: LibClient): Socket | undefined {
  const manager = internals(client);
  if (manager?.state !== CONNECTION_CONNECTING) return undefined;
  const socket = manager.socket;
  return socket && !socket.connecting && !socket.destroyed ? socket : undefined;
}

/** The ops a library transaction has queued (not part of its typed API). */
export function queuedOps(transaction: LibTransaction): ReadonlyArray<{ version?: unknown }> {
  const ops = (transaction as unknown as { ops?: unknown }).ops;
  return Array.isArray(ops) ? (ops as Array<{ version?: unknown }>) : [];
}

/**
 * True when the library can represent server error `code` as an exception. Unpatched 1.1.3
 * throws "Unknown code" for codes newer than it (e.g. SESSION_MOVED, -118) inside its socket
 * handler, crashing the process; patches/node-zookeeper-client+1.1.3+002+server-error-codes.patch
 * adds them.
 */
export function libraryKnowsCode(code: number): boolean {
  // `create` is missing from the type definitions but is how the library builds every server error.
  const exceptions = zookeeper.Exception as unknown as { create(code: number): unknown };
  try {
    exceptions.create(code);
    return true;
  } catch {
    return false;
  }
}

const load = createRequire(import.meta.url);
const library: ZkLibrary = {
  jute: load('node-zookeeper-client/lib/jute/index.js') as JuteModule,
  specification: load('node-zookeeper-client/lib/jute/specification.json') as Specification,
  ConnectionManager: load('node-zookeeper-client/lib/ConnectionManager.js') as ConnectionManagerClass,
};
installWire(library);
const { jute } = library;

/** What of the in-tree wire code is not in place in the library (empty when all is). */
export function libraryWireProblems(): string[] {
  return wireProblems(library);
}

/**
 * True when a connect drops a reply the previous socket left half read (patch 003), and when a
 * long reply is collected chunk by chunk (patch 004). Probed on a client that never connects.
 */
export function libraryFixesOfReading(client: LibClient): { staleReply: boolean; replyChunks: boolean } {
  const manager = internals(client) as unknown as ProbedManager;
  return { staleReply: dropsStaleReply(manager), replyChunks: collectsReplyChunks(manager) };
}

/** The library's op type of a failed op inside a multi. */
export const LIB_OP_ERROR = jute.OP_CODES['ERROR'] as number;

/** One getData of a multiRead: data and stat, or (type LIB_OP_ERROR) the server's error code. */
export interface RawReadResult {
  type: number;
  data?: Buffer | null;
  stat?: LibStat;
  err?: number;
}

interface QueueingManager {
  queue(request: unknown, callback: (err: unknown, response?: { payload?: unknown }) => void): void;
  registerChildWatcher(path: string, watcher: (event: LibEvent) => void): void;
}

/**
 * Sends one multiRead (ZooKeeper 3.6+) of getData requests without watches. Each read succeeds
 * or fails on its own (a missing node is an error result, not a failed request). Calls back
 * with `null` results when the server does not implement multiRead.
 */
export function multiReadData(
  client: LibClient,
  paths: readonly string[],
  done: (err: unknown, results?: RawReadResult[] | null) => void,
): void {
  const manager = internals(client) as unknown as QueueingManager;
  manager.queue(multiReadRequest(jute, paths), (err, response) => {
    if (serverLacksMultiRead(err, response?.payload)) return done(undefined, null);
    if (err) return done(err);
    const results = (response?.payload as { results?: unknown } | undefined)?.results;
    if (Array.isArray(results)) done(undefined, results as RawReadResult[]);
    else done(new Error('multiRead answered without results'));
  });
}

/** A folder's child names as they came (see {@link getChildrenRaw}), and its stat. */
export interface RawChildren {
  /** From `start`: `count` names, each a 4-byte big-endian length and its UTF-8 bytes. */
  buffer: Buffer;
  start: number;
  count: number;
  stat: LibStat;
}

const GET_CHILDREN2 = jute.OP_CODES['GET_CHILDREN2'] as number;

/**
 * getChildren with the names left undecoded in the reply (see `wire/child-list-response.ts`), for
 * folders too big to decode in one turn. `watcher` is registered as the library's getChildren
 * registers it: fired once when a child is added or removed, or the node deleted.
 */
export function getChildrenRaw(
  client: LibClient,
  path: string,
  watcher: ((event: LibEvent) => void) | undefined,
  done: (err: unknown, children?: RawChildren) => void,
): void {
  const manager = internals(client) as unknown as QueueingManager;
  const header = new jute.protocol['RequestHeader']!();
  header['type'] = GET_CHILDREN2;
  const payload = new jute.protocol['GetChildren2Request']!();
  payload['path'] = path;
  payload['watch'] = watcher !== undefined;
  manager.queue(new jute.Request(header, payload), (err, response) => {
    if (err) return done(err);
    if (watcher) manager.registerChildWatcher(path, watcher);
    const raw = response?.payload as ChildListResponse | undefined;
    if (raw?.buffer && raw.stat) {
      done(undefined, {
        buffer: raw.buffer,
        start: raw.start,
        count: raw.count,
        stat: raw.stat as unknown as LibStat,
      });
    } else {
      done(new Error('getChildren answered without children (is the wire code installed?)'));
    }
  });
}
