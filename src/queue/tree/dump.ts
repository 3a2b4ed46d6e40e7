import { isZkError, type NodeData, type ZkClient } from '../../zk/index.js';
import { createLimit } from '../scan/reader.js';

/** One node of a dumped tree, as `mrtq tree --json` prints it. */
export interface TreeNode {
  path: string;
  /** Data as UTF-8 text ('' for an empty node); base64 when the bytes are not valid UTF-8. */
  data: string;
  ephemeral: boolean;
  encoding?: 'base64';
}

/** How a walk reads: requests in flight at once, and how many nodes it reads ahead of the output. */
export interface TreeWalkOptions {
  /** ZooKeeper requests in flight at once (default 64). */
  concurrency?: number;
  /** Nodes read ahead of the one being emitted (default 512), besides the small families of those. */
  readAhead?: number;
}

const DEFAULT_CONCURRENCY = 64;
const DEFAULT_READ_AHEAD = 512;
/** Siblings read in one multiRead: a small reply even when each holds some kilobytes. */
const SIBLINGS_PER_READ = 64;
/** Children read along with their parent when there are no more than this many (a job has about 7). */
const SMALL_FAMILY = 16;

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
 * A node as read and its children's names (sorted); for a small family, the children's data is
 * already being read (`childData`, in the order of `children`).
 */
type NodeRead =
  { node: TreeNode; children: string[]; childData?: Promise<(NodeData | undefined)[]> } | undefined;

/** Paths still to emit below one parent, in order: `next` is the first not yet emitted, `ahead` the first not yet read. */
interface Frame {
  parent: string;
  names: string[];
  next: number;
  ahead: number;
}

/**
 * Walks every node under `root` (the root itself included unless it is `/`), excluding
 * ZooKeeper's own `/zookeeper` subtree, depth first with children in name order, and yields each
 * node as soon as it and those before it are read. Nodes deleted while walking are skipped.
 *
 * Siblings are read together, up to {@link SIBLINGS_PER_READ} in one multiRead; a node's children
 * are listed only when its stat says it has some. The walk never has more than `concurrency`
 * requests in flight, nor more than `readAhead` nodes read and not yet taken, so a 100,000-job
 * queue is read in bounded memory and the session's watchdog probe never queues behind a burst of
 * requests (one burst of every node of a 20,000-job queue silenced it for seconds and lost the
 * connection).
 */
export async function* streamTree(
  client: ZkClient,
  root = '/',
  options: TreeWalkOptions = {},
): AsyncGenerator<TreeNode> {
  const limit = createLimit(Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY));
  const readAhead = Math.max(1, options.readAhead ?? DEFAULT_READ_AHEAD);
  const pending = new Map<string, Promise<NodeRead>>();
  const expect = (path: string, read: Promise<NodeRead>): void => {
    // Its error is taken when the path's turn comes; until then it must not count as unhandled.
    read.catch(() => undefined);
    pending.set(path, read);
  };
  const startReads = (paths: string[]): void => {
    const data = limit(() => client.getDataMany(paths));
    paths.forEach((path, i) =>
      expect(
        path,
        data.then((all) => described(client, limit, path, all[i], true)),
      ),
    );
  };
  const stack: Frame[] = [{ parent: '', names: [root], next: 0, ahead: 0 }];
  const readSiblings = (frame: Frame, most: number): void => {
    frame.ahead = Math.max(frame.ahead, frame.next);
    const count = Math.min(SIBLINGS_PER_READ, frame.names.length - frame.ahead, most);
    const paths = Array.from({ length: count }, (_, i) => pathOf(frame, frame.ahead + i));
    frame.ahead += count;
    startReads(paths);
  };
  // Starts reads of the paths due next (the deepest frame first), up to the read-ahead.
  const fill = (): void => {
    for (let f = stack.length - 1; f >= 0 && pending.size < readAhead; f -= 1) {
      const frame = stack[f]!;
      while (Math.max(frame.ahead, frame.next) < frame.names.length && pending.size < readAhead)
        readSiblings(frame, readAhead - pending.size);
    }
  };
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.names.length) {
      stack.pop();
      continue;
    }
    const path = pathOf(frame, frame.next);
    // Read-ahead spent on later siblings further down: this one is read now all the same.
    if (!pending.has(path)) readSiblings(frame, SIBLINGS_PER_READ);
    frame.next += 1;
    const entry = await pending.get(path)!;
    pending.delete(path);
    if (entry) {
      if (path !== '/') yield entry.node;
      const { children: names, childData } = entry;
      if (names.length > 0) {
        const child: Frame = { parent: path, names, next: 0, ahead: childData ? names.length : 0 };
        stack.push(child);
        names.forEach((_, i) => {
          const childPath = pathOf(child, i);
          if (childData)
            expect(
              childPath,
              childData.then((all) => described(client, limit, childPath, all[i], false)),
            );
        });
      }
    }
    fill();
  }
}

function pathOf(frame: Frame, index: number): string {
  const name = frame.names[index]!;
  return frame.parent === '' ? name : join(frame.parent, name);
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Reads every node under `root` into one list, in the order of {@link streamTree}. For small
 * trees (tests, snapshots); a large one is better streamed.
 */
export async function dumpTree(client: ZkClient, root = '/'): Promise<TreeNode[]> {
  const nodes: TreeNode[] = [];
  for await (const node of streamTree(client, root)) nodes.push(node);
  return nodes;
}

/**
 * A node as read, with its children listed when its stat says it has some; undefined when it is
 * gone. With `family`, a small family's data is read at once: those children come next in the
 * walk, and reading them only when their turn comes would queue them behind the whole read-ahead.
 */
async function described(
  client: ZkClient,
  limit: <T>(task: () => Promise<T>) => Promise<T>,
  path: string,
  read: NodeData | undefined,
  family: boolean,
): Promise<NodeRead> {
  if (!read) return undefined;
  const node = { path, ...decode(read.data), ephemeral: read.stat.ephemeralOwner !== '0' };
  if (read.stat.numChildren === 0) return { node, children: [] };
  const names = await limit(() => childrenOf(client, path));
  const children = names.filter((name) => join(path, name) !== '/zookeeper').sort(byName);
  if (!family || children.length === 0 || children.length > SMALL_FAMILY) return { node, children };
  const childData = limit(() => client.getDataMany(children.map((name) => join(path, name))));
  childData.catch(() => undefined);
  return { node, children, childData };
}

async function childrenOf(client: ZkClient, path: string): Promise<string[]> {
  try {
    return await client.getChildren(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return []; // deleted between its read and this one
    throw err;
  }
}
