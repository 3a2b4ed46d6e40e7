import type { Logger } from 'pino';

/** How to reach ZooKeeper and how this process's one session behaves. */
export interface ZkOptions {
  /** `"h:p,h:p"`, optionally with a chroot: `"127.0.0.1:2181/merritt"`. */
  connectString: string;
  /** Requested session timeout; the server may negotiate it into its min/max range. Default 10 000. */
  sessionTimeoutMs?: number;
  /** Timeout applied to every request. Default `min(sessionTimeout / 2, 5000)`. */
  requestTimeoutMs?: number;
  /** How often the watchdog probes the server. Default `sessionTimeout / 5`. */
  watchdogIntervalMs?: number;
  /** How long `connectZk` waits for the first session. Default 15 000. */
  connectTimeoutMs?: number;
  /** Create the chroot path when it is missing. Default true. */
  createChroot?: boolean;
  /** Digest credentials (`"user:password"`), added to every underlying client this one makes. */
  auth?: { scheme: 'digest'; credentials: string };
  /** ACL of nodes this client creates: `open` (world:anyone, default) or `creator` (needs `auth`). */
  acl?: 'open' | 'creator';
  logger?: Logger;
  /** Called after every request with its latency and outcome (`ok` or the error kind), for metrics. */
  onRequest?: (operation: string, ms: number, outcome: string) => void;
}

export type CreateMode = 'persistent' | 'ephemeral' | 'persistent_sequential' | 'ephemeral_sequential';

/** A node's stat. Ids (zxids, session ids) are lowercase hex without `0x`, so they compare as strings. */
export interface ZkStat {
  version: number;
  cversion: number;
  numChildren: number;
  dataLength: number;
  /** Hex session id of the owner of an ephemeral node, `'0'` when the node is not ephemeral. */
  ephemeralOwner: string;
  /** Creation time, ms since the epoch. */
  ctime: number;
  /** Last modification time, ms since the epoch. */
  mtime: number;
  czxid: string;
  mzxid: string;
}

export type WatchEventType = 'created' | 'deleted' | 'changed' | 'children';

/**
 * One-shot watch callback; watches coalesce, so treat an event as "re-read now". A watch belongs
 * to the session it was set in: it survives a reconnect, but after `expired` it never fires.
 */
export type WatchCallback = (event: { type: WatchEventType; path: string }) => void;

/** One operation of a {@link ZkClient.multi} transaction. A missing or -1 version means "any". */
export type Op =
  | { op: 'create'; path: string; data?: Buffer | string | null; mode?: CreateMode }
  | { op: 'set'; path: string; data: Buffer | string | null; version?: number }
  | { op: 'delete'; path: string; version?: number }
  | { op: 'check'; path: string; version?: number };

export type OpResult = {
  op: Op['op'];
  path: string;
  /** New stat of a `set`. */
  stat?: ZkStat;
  /** Path a `create` made (with the sequential suffix), relative to the chroot. */
  createdPath?: string;
};

export type SessionState = 'connected' | 'disconnected' | 'suspended' | 'expired' | 'closed';

/**
 * A change of the session's state.
 * - `connected`: requests are answered (`sessionId` tells whether it is a new session).
 * - `disconnected`: the connection dropped; the library is reconnecting to the same session.
 * - `suspended`: the server stopped answering; the session may be lost, in-flight requests were failed.
 * - `expired`: the session is lost (ephemerals and watches gone); a new session is being made.
 * - `closed`: `close()` was called; the stream completes.
 */
export interface SessionEvent {
  state: SessionState;
  sessionId: string;
  /** `Date.now()` when the state was entered. */
  at: number;
}
