import { dumpTree } from '../../src/queue/tree/dump.js';
import type { ZkClient } from '../../src/zk/index.js';

/** A tree as `path → data`, with ephemeral nodes marked by a trailing ` (ephemeral)` on the path. */
export type Tree = Map<string, string>;

/** What changed between two dumps, in the seeds' own terms: nodes written and nodes deleted. */
export interface TreeDiff {
  /** Created or changed, with their new data. */
  written: Record<string, string>;
  deleted: string[];
}

/** Dumps the tree and replaces real ids with labels (e.g. jid0000000003 → JID1) so steps compare across runs. */
export async function snapshot(zk: ZkClient, labels: Map<string, string>): Promise<Tree> {
  const tree: Tree = new Map();
  for (const node of await dumpTree(zk, '/')) {
    const path = relabel(node.path, labels) + (node.ephemeral ? ' (ephemeral)' : '');
    tree.set(path, relabel(node.data, labels));
  }
  return tree;
}

function relabel(text: string, labels: Map<string, string>): string {
  let out = text;
  for (const [id, label] of labels) out = out.split(id).join(label);
  return out;
}

export function diffTrees(before: Tree, after: Tree): TreeDiff {
  const written: Record<string, string> = {};
  const deleted: string[] = [];
  for (const [path, data] of after) if (before.get(path) !== data) written[path] = data;
  for (const path of before.keys()) if (!after.has(path)) deleted.push(path);
  return { written, deleted: deleted.sort() };
}

/** Parses JSON node data in a diff so assertions read like the seed's YAML. */
export function parsed(diff: TreeDiff): { written: Record<string, unknown>; deleted: string[] } {
  const written: Record<string, unknown> = {};
  for (const [path, data] of Object.entries(diff.written)) {
    try {
      written[path] = data.startsWith('{') || data.startsWith('[') ? JSON.parse(data) : data;
    } catch {
      written[path] = data;
    }
  }
  return { written, deleted: diff.deleted };
}
