import { ACL, CreateMode, LibEventTypes, type LibEvent, type LibStat } from './library.js';
import type { CreateMode as Mode, WatchCallback, WatchEventType, ZkStat } from './types.js';
import type { Logger } from 'pino';

/** Lowercase hex of an 8-byte id without leading zeros (`'0'` for none), as ZooKeeper prints ids. */
export function hexId(id: Buffer | undefined): string {
  if (!id || id.length !== 8) return '0';
  return id.readBigUInt64BE(0).toString(16);
}

function longToNumber(value: Buffer): number {
  return Number(value.readBigInt64BE(0));
}

/** The library's stat (longs as 8-byte buffers) as plain values. */
export function toZkStat(stat: LibStat): ZkStat {
  return {
    version: stat.version,
    cversion: stat.cversion,
    numChildren: stat.numChildren,
    dataLength: stat.dataLength,
    ephemeralOwner: hexId(stat.ephemeralOwner),
    ctime: longToNumber(stat.ctime),
    mtime: longToNumber(stat.mtime),
    czxid: hexId(stat.czxid),
    mzxid: hexId(stat.mzxid),
  };
}

/** Strings are stored as UTF-8; null/undefined as "no data". */
export function toData(data: Buffer | string | null | undefined): Buffer | undefined {
  if (data === null || data === undefined) return undefined;
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

const MODES: Record<Mode, number> = {
  persistent: CreateMode.PERSISTENT,
  ephemeral: CreateMode.EPHEMERAL,
  persistent_sequential: CreateMode.PERSISTENT_SEQUENTIAL,
  ephemeral_sequential: CreateMode.EPHEMERAL_SEQUENTIAL,
};

/** The library's numeric create mode; persistent by default. */
export function toLibMode(mode: Mode | undefined): number {
  return MODES[mode ?? 'persistent'];
}

/** ACL list for new nodes: world-open, or all rights for the authenticated creator only. */
export function aclFor(acl: 'open' | 'creator'): InstanceType<typeof ACL>[] {
  return acl === 'creator' ? ACL_CREATOR : ACL_OPEN;
}

// The library exports these lists at runtime; its type declarations omit them.
const ACL_OPEN = (ACL as unknown as Record<string, InstanceType<typeof ACL>[]>).OPEN_ACL_UNSAFE ?? [];
const ACL_CREATOR = (ACL as unknown as Record<string, InstanceType<typeof ACL>[]>).CREATOR_ALL_ACL ?? [];

const EVENT_TYPES = new Map<number, WatchEventType>([
  [LibEventTypes.NODE_CREATED, 'created'],
  [LibEventTypes.NODE_DELETED, 'deleted'],
  [LibEventTypes.NODE_DATA_CHANGED, 'changed'],
  [LibEventTypes.NODE_CHILDREN_CHANGED, 'children'],
]);

type LibWatcher = (event: LibEvent) => void;

/**
 * Adapts watch callbacks to the library, one adapter per callback: the library skips a watcher
 * already registered on a path by function identity, so the same callback is not called twice.
 */
export class WatcherAdapters {
  private readonly adapters = new WeakMap<WatchCallback, LibWatcher>();

  constructor(private readonly log: Logger) {}

  adapt(callback: WatchCallback | undefined): LibWatcher | undefined {
    if (!callback) return undefined;
    let adapter = this.adapters.get(callback);
    if (!adapter) {
      adapter = (event) => this.deliver(callback, event);
      this.adapters.set(callback, adapter);
    }
    return adapter;
  }

  private deliver(callback: WatchCallback, event: LibEvent): void {
    const type = EVENT_TYPES.get(event.getType());
    if (!type) return;
    // The library calls watchers from its socket handler: a throw there would break its parsing.
    try {
      callback({ type, path: event.getPath() });
    } catch (err) {
      this.log.error({ err, path: event.getPath() }, 'watch callback threw');
    }
  }
}
