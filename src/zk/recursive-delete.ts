import { ZkError, isZkError } from './errors.js';
import { joinPath } from './paths.js';

/** What a recursive delete needs from a client. */
export interface TreeClient {
  getChildren(path: string): Promise<string[]>;
  delete(path: string): Promise<void>;
}

/** Requests in flight at once: the library pipelines them on one socket. */
const WINDOW = 256;

/** How often a subtree that grew while being deleted is listed and deleted again. */
const MAX_ATTEMPTS = 5;

/**
 * Deletes `path` and everything under it, deepest level first, with pipelined deletes.
 * Nodes that vanish meanwhile are fine (NO_NODE ignored); a node that gains a child meanwhile
 * (NOT_EMPTY) has its subtree listed and deleted again, up to {@link MAX_ATTEMPTS} times.
 * A node whose children cannot be listed (NO_AUTH) is deleted as a leaf.
 */
export async function deleteRecursive(zk: TreeClient, path: string, attempt = 1): Promise<void> {
  if (path === '/') {
    throw new ZkError('BAD_ARGUMENTS', { path, message: 'deleteRecursive /: refusing to delete the root' });
  }
  const levels = await listLevels(zk, path);
  for (const level of levels.reverse()) {
    await forEachLimited(level, WINDOW, (node) => deleteNode(zk, node, attempt));
  }
}

async function deleteNode(zk: TreeClient, path: string, attempt: number): Promise<void> {
  try {
    await zk.delete(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return;
    if (isZkError(err, 'NOT_EMPTY') && attempt < MAX_ATTEMPTS) {
      await deleteRecursive(zk, path, attempt + 1);
      return;
    }
    throw err;
  }
}

/** The subtree as levels: `[[path], [its children], [their children], …]`. */
async function listLevels(zk: TreeClient, path: string): Promise<string[][]> {
  const levels: string[][] = [[path]];
  for (let level = levels[0] ?? []; level.length > 0;) {
    const next: string[] = [];
    await forEachLimited(level, WINDOW, async (parent) => {
      for (const child of await childrenOrNone(zk, parent)) next.push(joinPath(parent, child));
    });
    if (next.length > 0) levels.push(next);
    level = next;
  }
  return levels;
}

async function childrenOrNone(zk: TreeClient, path: string): Promise<string[]> {
  try {
    return await zk.getChildren(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    // Unreadable (another identity's ACL), but deleting needs only the parent's permission:
    // try it as a leaf; if it has children, its delete reports NOT_EMPTY.
    if (isZkError(err, 'NO_AUTH')) return [];
    throw err;
  }
}

/** Runs `work` over `items` with at most `limit` running at once; rejects on the first failure. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
