import { isZkError, type ZkClient } from '../zk/index.js';

/** One node of a dumped tree, as `mrtq tree --json` prints it. */
export interface TreeNode {
  path: string;
  /** Data as UTF-8 text ('' for an empty node); base64 when the bytes are not valid UTF-8. */
  data: string;
  ephemeral: boolean;
  encoding?: 'base64';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(data: Buffer | undefined): Pick<TreeNode, 'data' | 'encoding'> {
  if (!data || data.length === 0) return { data: '' };
  try {
    return { data: utf8.decode(data) };
  } catch {
    return { data: data.toString('base64'), encoding: 'base64' };
  }
}

function join(parent: string, child: string): string {
  return parent === '/' ? `/${child}` : `${parent}/${child}`;
}

/**
 * Reads every node under `root` (the root itself included unless it is `/`), excluding
 * ZooKeeper's own `/zookeeper` subtree, sorted by path. Nodes deleted while walking are skipped.
 */
export async function dumpTree(client: ZkClient, root = '/'): Promise<TreeNode[]> {
  const nodes: TreeNode[] = [];
  let level = [root];
  while (level.length > 0) {
    const read = await Promise.all(level.map((path) => readNode(client, path)));
    const next: string[] = [];
    for (const [i, entry] of read.entries()) {
      if (!entry) continue;
      const path = level[i] as string;
      if (path !== '/') nodes.push(entry.node);
      for (const child of entry.children) {
        const childPath = join(path, child);
        if (childPath !== '/zookeeper') next.push(childPath);
      }
    }
    level = next;
  }
  return nodes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function readNode(
  client: ZkClient,
  path: string,
): Promise<{ node: TreeNode; children: string[] } | undefined> {
  try {
    const [{ data, stat }, children] = await Promise.all([client.getData(path), client.getChildren(path)]);
    return { node: { path, ...decode(data), ephemeral: stat.ephemeralOwner !== '0' }, children };
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}
