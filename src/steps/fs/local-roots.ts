import { statfs } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';

/**
 * Which directories are on a local disk, where the ingest steps make their small file-system
 * calls synchronously (see calls.ts). A root is registered by the service that writes below it
 * (the working directory, the embedded store, inventory and minter) and checked once, in the
 * background: until its `statfs` says a local file system, its calls go through the thread pool
 * as before, and a root on a network file system (NFS, SMB, FUSE, Ceph...) stays there: one slow
 * or hung server must never block the event loop, which keeps the ZooKeeper session alive.
 */

/** Linux `statfs` magic numbers of local disk and memory file systems (statfs(2)). */
const LOCAL_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0xef53, 'ext2/3/4'],
  [0x58465342, 'xfs'],
  [0x9123683e, 'btrfs'],
  [0x2fc12fc1, 'zfs'],
  [0xf2f52010, 'f2fs'],
  [0xca451a4e, 'bcachefs'],
  [0x3153464a, 'jfs'],
  [0x01021994, 'tmpfs'],
  [0x858458f6, 'ramfs'],
  [0x794c7630, 'overlayfs'],
]);

/** Whether a `statfs` type is a local file system (an unknown one counts as not local). */
export function isLocalFileSystem(type: number): boolean {
  return LOCAL_FILE_SYSTEMS.has(type);
}

/** Roots checked and found local (resolved, without a trailing separator). */
const local = new Set<string>();
/** Roots registered: the check of each, settled or in flight. */
const checks = new Map<string, Promise<boolean>>();

/** The nearest directory at or above `dir` that exists, and its file system's type. */
async function fileSystemType(dir: string): Promise<number> {
  for (let at = dir; ; at = dirname(at)) {
    try {
      return Number((await statfs(at)).type);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw err;
    }
  }
}

/**
 * Registers `root` (a directory a service writes below; it need not exist yet). Resolves to
 * whether it was found local; a failed check leaves it on the thread pool.
 */
export function registerLocalRoot(root: string): Promise<boolean> {
  const dir = resolve(root);
  let check = checks.get(dir);
  if (!check) {
    check = fileSystemType(dir).then(
      (type) => {
        if (isLocalFileSystem(type)) local.add(dir);
        return local.has(dir);
      },
      () => false,
    );
    checks.set(dir, check);
  }
  return check;
}

/**
 * Whether `path` (absolute, as the steps build it from their roots) is below a root found local.
 * A path is not resolved here: the steps join their roots with names they checked.
 */
export function isOnLocalRoot(path: string): boolean {
  for (const root of local) {
    if (!path.startsWith(root)) continue;
    if (path.length === root.length || path[root.length] === sep || root.endsWith(sep)) return true;
  }
  return false;
}
